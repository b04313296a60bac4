// A resource's page: its conditions, events, children (objects it owns), owners, the kind-specific panels
// and the sanitized object. Built from the dashboard's informer caches only.

import type { KubeObject } from '@modelplane/runtime/meta';
import type { InferenceProviderConfig, ModelDeployment } from '../../apis/kubeairunway/index.ts';
import type { AIMService } from '../../controllers/aim/shared/kinds.ts';
import { explainSelection } from '../../controllers/kubeairunway/selection/index.ts';
import { chainOf, explainChain } from '../view/explain-chain.ts';
import type { LoadRunner } from './load.ts';
import { autoscalerPanel, type DecisionFeed } from './panels/autoscaler.ts';
import { configPanels } from './panels/config.ts';
import { routePanel } from './panels/route.ts';
import { podsOf, podView } from './pods.ts';
import { sanitizeObject } from './sanitize.ts';
import { type DashboardState, keyOf } from './state.ts';
import { childOf, summaryOf } from './summary.ts';
import { tryPanelOf } from './try.ts';
import type { ChainPanel, ConditionView, EventView, ExplainPanel, Panel, ResourceDetail } from './types.ts';

type Loose = Record<string, any>;

function conditionsOf(obj: KubeObject): ConditionView[] {
  const list = ((obj.status as Loose | undefined)?.conditions ?? []) as Loose[];
  return list
    .filter((c) => c && typeof c.type === 'string')
    .map((c) => ({
      type: c.type,
      status: String(c.status ?? 'Unknown'),
      ...(c.reason ? { reason: c.reason } : {}),
      ...(c.message ? { message: c.message } : {}),
      ...(c.lastTransitionTime ? { lastTransitionTime: c.lastTransitionTime } : {}),
    }));
}

/** the events of the resource and of its children (a child's events are often where the reason is) */
function eventsOf(state: DashboardState, obj: KubeObject, children: readonly KubeObject[]): EventView[] {
  const about = new Map<string, string | undefined>();
  if (obj.metadata.uid) about.set(obj.metadata.uid, undefined);
  for (const c of children) if (c.metadata.uid) about.set(c.metadata.uid, `${c.kind} ${c.metadata.name}`);
  const out: EventView[] = [];
  for (const e of state.objects('events') as Iterable<Loose>) {
    const io = e.involvedObject ?? {};
    const mine = io.uid
      ? about.has(io.uid)
      : io.kind === obj.kind &&
        io.name === obj.metadata.name &&
        (io.namespace ?? '') === (obj.metadata.namespace ?? '');
    if (!mine) continue;
    const object = io.uid ? about.get(io.uid) : undefined;
    out.push({
      type: e.type ?? 'Normal',
      reason: e.reason ?? '',
      message: e.message ?? e.note ?? '',
      count: e.count ?? e.series?.count ?? 1,
      lastSeen: e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? '',
      source: e.source?.component ?? e.reportingComponent ?? e.reportingController ?? '',
      ...(object ? { object } : {}),
    });
  }
  return out.sort((a, b) => b.lastSeen.localeCompare(a.lastSeen)).slice(0, 50);
}

function childrenOf(state: DashboardState, obj: KubeObject): KubeObject[] {
  const uid = obj.metadata.uid;
  if (!uid) return [];
  const out: KubeObject[] = [];
  for (const role of ['resource', 'child'] as const)
    for (const o of state.objects(role)) if (o.metadata.ownerReferences?.some((r) => r.uid === uid)) out.push(o);
  return out;
}

type Ref = { kind?: string; name?: string; namespace?: string };

/** an AIMService's resolved chain from its status, each link with its state when the dashboard sees it */
function chainPanel(state: DashboardState, svc: KubeObject): ChainPanel | undefined {
  const st = (svc.status ?? {}) as {
    resolvedRuntimeConfig?: Ref;
    resolvedModel?: Ref;
    resolvedTemplate?: Ref;
    cache?: { templateCacheRef?: Ref };
  };
  const refs: Array<[string, Ref | undefined]> = [
    ['Runtime config', st.resolvedRuntimeConfig],
    ['Model', st.resolvedModel],
    ['Template', st.resolvedTemplate],
    ['Template cache', st.cache?.templateCacheRef],
  ];
  const links = refs.flatMap(([role, ref]) => {
    if (!ref?.kind || !ref.name) return [];
    const obj = state.find(`aim.eai.amd.com/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`);
    const link = obj
      ? childOf(obj, true)
      : {
          group: 'aim.eai.amd.com',
          kind: ref.kind,
          namespace: ref.namespace ?? '',
          name: ref.name,
          state: 'Unknown',
          reason: 'not visible to the dashboard',
          tone: 'progress' as const,
        };
    return [{ role, ...link }];
  });
  return links.length > 0 ? { kind: 'chain', links } : undefined;
}

/** the paragraph `modelplane explain aimsvc/NAME` prints, from the objects the dashboard's informers hold */
function explainPanel(state: DashboardState, svc: KubeObject): ExplainPanel {
  const group = 'aim.eai.amd.com';
  const chain = chainOf(svc, {
    get: (kind, name, namespace) => state.find(`${group}/${kind}/${namespace ?? ''}/${name}`),
    list: (kind, namespace) =>
      state.ofKind(kind, group).filter((o) => namespace === undefined || o.metadata.namespace === namespace),
  });
  return {
    kind: 'explain',
    text: explainChain(chain),
    running: (svc.status as Loose | undefined)?.status === 'Running',
  };
}

/** what a page may show beyond the cluster's objects: the autoscaler's history and the load button */
export interface DetailExtras {
  feed?: DecisionFeed;
  load?: LoadRunner;
}

function panelsOf(
  state: DashboardState,
  obj: KubeObject,
  children: KubeObject[],
  events: EventView[],
  extras: DetailExtras,
): Panel[] {
  switch (obj.kind) {
    case 'ModelDeployment': {
      const tryIt = tryPanelOf(state, obj);
      // why this provider first (the page's headline question), then how to call it
      return [
        {
          kind: 'selection',
          ...explainSelection(
            obj as ModelDeployment,
            state.ofKind('InferenceProviderConfig', 'kubeairunway.ai') as InferenceProviderConfig[],
          ),
        },
        ...(tryIt ? [tryIt] : []),
      ];
    }
    case 'AIMService': {
      const svc = obj as AIMService;
      const name = svc.spec.runtimeConfigName || 'default';
      const namespaced = state
        .ofKind('AIMRuntimeConfig')
        .find((c) => c.metadata.name === name && c.metadata.namespace === svc.metadata.namespace);
      const cluster = state.ofKind('AIMClusterRuntimeConfig').find((c) => c.metadata.name === name);
      const chain = chainPanel(state, obj);
      const tryIt = tryPanelOf(state, obj);
      // why it is (not) Running first: the page's headline question, in `modelplane explain`'s words
      return [
        explainPanel(state, obj),
        ...(tryIt ? [tryIt] : []),
        routePanel(svc, { ...(namespaced ? { namespaced } : {}), ...(cluster ? { cluster } : {}) } as Parameters<
          typeof routePanel
        >[1]),
        ...(chain ? [chain] : []),
      ];
    }
    case 'LlamaStackDistribution':
      return configPanels(obj, children);
    case 'VariantAutoscaling': {
      const until = extras.load?.runningUntil(keyOf(obj));
      const panel = autoscalerPanel(obj, {
        observed: state.autoscalerHistory.get(keyOf(obj)) ?? [],
        ...(extras.feed ? { feed: extras.feed } : {}),
        configMaps: state.ofKind('ConfigMap', ''),
        events,
        canSendLoad: extras.load !== undefined,
      });
      return [{ ...panel, ...(until !== undefined ? { loadUntil: until } : {}) }];
    }
    default:
      return [];
  }
}

export function resourceDetail(
  state: DashboardState,
  key: string,
  extras: DetailExtras = {},
): ResourceDetail | undefined {
  const obj = state.find(key);
  if (!obj) return undefined;
  const children = childrenOf(state, obj);
  const owners = (obj.metadata.ownerReferences ?? []).map((r) => {
    const group = r.apiVersion.includes('/') ? r.apiVersion.slice(0, r.apiVersion.indexOf('/')) : '';
    const owner = state.find(`${group}/${r.kind}/${obj.metadata.namespace ?? ''}/${r.name}`);
    return owner
      ? childOf(owner, true)
      : {
          group,
          kind: r.kind,
          namespace: obj.metadata.namespace ?? '',
          name: r.name,
          state: 'Unknown',
          reason: 'not visible to the dashboard',
          tone: 'progress' as const,
        };
  });
  const events = eventsOf(state, obj, children);
  const family = [...state.objects('resource'), ...state.objects('child')];
  const pods = podsOf(obj, family, state.ofKind('Pod', '')).map((p) => podView(p, keyOf(p)));
  return {
    summary: summaryOf(obj),
    pods,
    conditions: conditionsOf(obj),
    events,
    // every child the dashboard sees has its own page, built-in kinds (Deployment, HTTPRoute, Pod…) included
    children: children.map((c) => childOf(c, state.find(keyOf(c)) !== undefined)),
    owners,
    panels: panelsOf(state, obj, children, events, extras),
    object: sanitizeObject(obj),
    managedFields: obj.metadata.managedFields ?? [],
  };
}
