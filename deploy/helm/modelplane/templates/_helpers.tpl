{{/* The generated controller sets and their RBAC rules (npm run gen:chart), as a map. */}}
{{- define "modelplane.generated" -}}
{{- .Files.Get "files/controller-sets.yaml" | fromYaml | toJson -}}
{{- end -}}

{{- define "modelplane.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "modelplane.selectorLabels" -}}
app.kubernetes.io/name: modelplane
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "modelplane.labels" -}}
{{ include "modelplane.selectorLabels" . }}
app.kubernetes.io/part-of: modelplane
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ include "modelplane.chart" . }}
{{- end -}}

{{- define "modelplane.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/*
The processes this release runs, as a JSON list; every Deployment, ServiceAccount and binding comes from it.
Each: name (Deployment and ServiceAccount modelplane-<name>), args, sets (whose ClusterRoles it is bound to),
replicas, resources, webhook (serves the admission webhooks).
*/}}
{{- define "modelplane.processes" -}}
{{- $gen := include "modelplane.generated" . | fromJson -}}
{{- $httpPort := printf "--http-port=%v" .Values.metrics.port -}}
{{- $procs := list -}}
{{- $c := .Values.controller -}}
{{- if $c.enabled -}}
  {{- $runnable := without $gen.runSets "webhooks" -}}
  {{- if empty $c.sets -}}
    {{- fail (printf "controller.sets is empty: list the controller sets to run (%s) or set controller.enabled=false" (join ", " $runnable)) -}}
  {{- end -}}
  {{- range $c.sets -}}
    {{- if eq . "webhooks" -}}
      {{- fail "controller.sets: \"webhooks\" runs in its own Deployment (webhooks.enabled), not in the controller" -}}
    {{- end -}}
    {{- if not (has . $runnable) -}}
      {{- fail (printf "controller.sets: unknown controller set %q; known: %s" . (join ", " $runnable)) -}}
    {{- end -}}
  {{- end -}}
  {{- if and (gt (int $c.replicas) 1) (not $c.leaderElect) -}}
    {{- fail "controller.replicas > 1 needs controller.leaderElect=true: without it every replica reconciles" -}}
  {{- end -}}
  {{- $args := list "run" (printf "--controllers=%s" (join "," $c.sets)) $httpPort -}}
  {{- if $c.leaderElect }}{{ $args = append $args "--leader-elect" }}{{ end -}}
  {{- range $c.registryMirrors }}{{ $args = append $args (printf "--registry-mirror=%s" .) }}{{ end -}}
  {{- $gw := $c.gateway | default dict -}}
  {{- if or $gw.name $gw.namespace -}}
    {{- if not (and $gw.name $gw.namespace) -}}
      {{- fail "controller.gateway: set both name and namespace (the Gateway ModelDeployments are routed through), or neither to discover it" -}}
    {{- end -}}
    {{- $args = append $args (printf "--gateway-name=%s" $gw.name) -}}
    {{- $args = append $args (printf "--gateway-namespace=%s" $gw.namespace) -}}
  {{- end -}}
  {{- $procs = append $procs (dict "name" "controller" "args" $args "sets" $c.sets "replicas" $c.replicas "resources" $c.resources "webhook" false) -}}
{{- end -}}
{{- $w := .Values.webhooks -}}
{{- if $w.enabled -}}
  {{- $args := list "run" "--controllers=webhooks" $httpPort (printf "--webhook-port=%v" $w.port) -}}
  {{- $procs = append $procs (dict "name" "webhooks" "args" $args "sets" (list "webhooks") "replicas" $w.replicas "resources" $w.resources "webhook" true) -}}
{{- end -}}
{{- $p := .Values.providers -}}
{{- $shared := list "replicas" "leaderElect" "finalizerTimeoutSeconds" "resources" -}}
{{- range $key, $_ := $p -}}
  {{- if not (or (has $key $shared) (hasKey $gen.providers $key)) -}}
    {{- fail (printf "providers.%s: unknown provider; known: %s" $key (join ", " (keys $gen.providers | sortAlpha))) -}}
  {{- end -}}
{{- end -}}
{{- range $name, $set := $gen.providers -}}
  {{- $entry := index $p $name | default dict -}}
  {{- if $entry.enabled -}}
    {{- $args := list "provider" $name $httpPort (printf "--finalizer-timeout=%v" $p.finalizerTimeoutSeconds) -}}
    {{- if $p.leaderElect }}{{ $args = append $args "--leader-elect" }}{{ end -}}
    {{- $replicas := ternary $entry.replicas $p.replicas (hasKey $entry "replicas") -}}
    {{- if and (gt (int $replicas) 1) (not $p.leaderElect) -}}
      {{- fail (printf "providers: %s has %v replicas but providers.leaderElect is false: without it every replica reconciles" $name $replicas) -}}
    {{- end -}}
    {{- $resources := ternary $entry.resources $p.resources (hasKey $entry "resources") -}}
    {{- $procs = append $procs (dict "name" $set "args" $args "sets" (list $set) "replicas" $replicas "resources" $resources "webhook" false) -}}
  {{- end -}}
{{- end -}}
{{- toJson $procs -}}
{{- end -}}
