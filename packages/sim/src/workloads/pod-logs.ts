// Container logs of simulated pods. On a real cluster the kubelet keeps them and the API server proxies
// `pods/log` to it; here the simulated kubelet writes them, `modelplane dev` registers `get` as the
// embedded API server's log provider, and on a real control plane the simulated kubelets' endpoint
// (kubelet-endpoint.ts) serves `get` to kube-apiserver. Logs are kept per pod instance (uid): a pod recreated under the same
// name starts empty, and a restarted container's previous run is kept as `previous`, like `kubectl logs -p`.

export interface ContainerLog {
  current: string[];
  previous: string[] | undefined;
}

interface PodLogs {
  uid: string;
  containers: Map<string, ContainerLog>;
}

/** what `kubectl logs` asks the kubelet for: the previous run, the last lines, the first bytes of those */
export interface LogReadOptions {
  previous?: boolean;
  tailLines?: number | undefined;
  limitBytes?: number | undefined;
}

export interface PodLogStoreOptions {
  /** lines kept per container run; older lines are dropped (default 5000) */
  maxLines?: number;
}

export class PodLogStore {
  private readonly pods = new Map<string, PodLogs>();
  private readonly maxLines: number;

  constructor(opts: PodLogStoreOptions = {}) {
    this.maxLines = opts.maxLines ?? 5000;
  }

  /**
   * The container's output as `kubectl logs` prints it (newline-terminated), or undefined if it never
   * ran. Without a container name, the pod's only container that has output.
   */
  get(namespace: string, pod: string, container: string | undefined, opts: LogReadOptions = {}): string | undefined {
    const containers = this.pods.get(key(namespace, pod))?.containers;
    const c =
      container !== undefined
        ? containers?.get(container)
        : containers?.size === 1
          ? [...containers.values()][0]
          : undefined;
    const lines = opts.previous ? c?.previous : c?.current;
    if (!lines) return undefined;
    const { tailLines } = opts;
    const kept = tailLines !== undefined && tailLines >= 0 ? lines.slice(Math.max(0, lines.length - tailLines)) : lines;
    const text = kept.length > 0 ? `${kept.join('\n')}\n` : '';
    return opts.limitBytes !== undefined && opts.limitBytes > 0
      ? Buffer.from(text).subarray(0, opts.limitBytes).toString('utf8')
      : text;
  }

  /** appends lines to the current run of a container of pod instance `uid` */
  append(namespace: string, pod: string, uid: string, container: string, lines: readonly string[]): void {
    const log = this.container(namespace, pod, uid, container);
    log.current.push(...lines);
    if (log.current.length > this.maxLines) log.current.splice(0, log.current.length - this.maxLines);
  }

  /** a container restarted: its output so far becomes `previous`, the new run starts empty */
  restart(namespace: string, pod: string, uid: string, container: string): void {
    const log = this.container(namespace, pod, uid, container);
    log.previous = log.current;
    log.current = [];
  }

  /** forgets a pod's logs (the kubelet removes them with the pod) */
  delete(namespace: string, pod: string, uid?: string): void {
    const k = key(namespace, pod);
    if (uid === undefined || this.pods.get(k)?.uid === uid) this.pods.delete(k);
  }

  /** the pods with logs, as `namespace/name` */
  keys(): string[] {
    return [...this.pods.keys()];
  }

  private container(namespace: string, pod: string, uid: string, container: string): ContainerLog {
    const k = key(namespace, pod);
    let p = this.pods.get(k);
    if (!p || p.uid !== uid) {
      p = { uid, containers: new Map() };
      this.pods.set(k, p);
    }
    let c = p.containers.get(container);
    if (!c) {
      c = { current: [], previous: undefined };
      p.containers.set(container, c);
    }
    return c;
  }
}

function key(namespace: string, pod: string): string {
  return `${namespace}/${pod}`;
}
