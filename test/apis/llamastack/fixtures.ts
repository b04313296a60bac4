// LlamaStackDistribution objects with every field set, in both versions, for the conversion tests.
export function fullV1Alpha2(name = 'full-v2', namespace = 'llama') {
  return {
    apiVersion: 'llamastack.io/v1alpha2',
    kind: 'LlamaStackDistribution',
    metadata: { name, namespace, labels: { team: 'a' }, annotations: { note: 'kept' } },
    spec: {
      distribution: { name: 'starter' },
      providers: {
        inference: [
          {
            id: 'vllm-primary',
            provider: 'vllm',
            endpoint: 'http://vllm:8000/v1',
            apiKey: { name: 'vllm-creds', key: 'token' },
            settings: { max_tokens: 4096, tls_verify: false },
          },
          { id: 'from-md', provider: 'vllm', modelDeploymentRef: { name: 'qwen' } },
        ],
        safety: [{ id: 'llama-guard', provider: 'inline::llama-guard', settings: { excluded_categories: [] } }],
        vectorIo: [
          {
            id: 'faiss',
            provider: 'inline::faiss',
            settings: { persistence: { namespace: 'vector_io::faiss', backend: 'kv_default' } },
          },
        ],
        toolRuntime: [
          { id: 'search', provider: 'brave-search', secretRefs: { 'api-key': { name: 'brave', key: 'key' } } },
        ],
      },
      resources: {
        models: [
          { name: 'llama3', provider: 'vllm-primary', contextLength: 8192, modelType: 'llm', quantization: 'fp8' },
        ],
        tools: ['builtin::websearch'],
        shields: ['llama-guard'],
      },
      // what Llama Stack 0.7.3 can run (redis is refused at admission)
      storage: { kv: { type: 'sqlite' }, sql: { type: 'sqlite' } },
      disabled: ['eval', 'scoring'],
      networking: {
        port: 9090,
        tls: { caBundle: { configMapName: 'ca', configMapNamespace: 'llama', configMapKeys: ['ca.crt'] } },
        expose: { enabled: true, hostname: 'llama.example.com' },
        allowedFrom: { namespaces: ['apps'], labels: ['team'] },
      },
      workload: {
        replicas: 2,
        workers: 2,
        resources: { requests: { cpu: '2', memory: '4Gi' }, limits: { memory: '8Gi' } },
        autoscaling: {
          minReplicas: 2,
          maxReplicas: 5,
          targetCPUUtilizationPercentage: 70,
          targetMemoryUtilizationPercentage: 80,
        },
        storage: { size: '20Gi', mountPath: '/data' },
        podDisruptionBudget: { maxUnavailable: 1 },
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway' },
        ],
        overrides: {
          serviceAccountName: 'llama-sa',
          terminationGracePeriodSeconds: 45,
          env: [{ name: 'LOG_LEVEL', value: 'debug' }],
          command: ['python'],
          args: ['-m', 'llama_stack.core.server.server'],
          volumes: [{ name: 'extra', emptyDir: {} }],
          volumeMounts: [{ name: 'extra', mountPath: '/extra' }],
        },
      },
      externalProviders: { inference: [{ providerId: 'ext', providerType: 'remote::ext', module: 'ext_provider' }] },
    },
  };
}

export function fullV1Alpha1(name = 'full-v1', namespace = 'llama') {
  return {
    apiVersion: 'llamastack.io/v1alpha1',
    kind: 'LlamaStackDistribution',
    metadata: { name, namespace, labels: { team: 'b' } },
    spec: {
      replicas: 3,
      server: {
        distribution: { image: 'docker.io/llamastack/distribution-starter:0.2.15' },
        containerSpec: {
          name: 'server',
          port: 8322,
          resources: { requests: { cpu: '1', memory: '2Gi' } },
          env: [{ name: 'INFERENCE_MODEL', value: 'llama3' }],
          command: ['/bin/sh'],
          args: ['-c', 'run'],
        },
        workers: 3,
        podOverrides: {
          serviceAccountName: 'sa',
          terminationGracePeriodSeconds: 30,
          volumes: [{ name: 'v', emptyDir: {} }],
          volumeMounts: [{ name: 'v', mountPath: '/v' }],
        },
        podDisruptionBudget: { minAvailable: 1 },
        topologySpreadConstraints: [
          { maxSkew: 2, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule' },
        ],
        autoscaling: { minReplicas: 1, maxReplicas: 4, targetCPUUtilizationPercentage: 60 },
        storage: { size: '5Gi', mountPath: '/.llama' },
        userConfig: { configMapName: 'my-config', configMapNamespace: 'llama' },
        tlsConfig: { caBundle: { configMapName: 'ca', configMapKeys: ['a.crt', 'b.crt'] } },
      },
      network: { exposeRoute: true, allowedFrom: { namespaces: ['*'], labels: ['allow'] } },
    },
  };
}
