// CRDs given to startApiServer are created the way a client would create them (over HTTPS, through
// validation and admission), and startApiServer returns only once each one is served.
import { request } from 'node:https';
import type { ServerCore } from './core.ts';
import type { KubeObject } from './types.ts';

interface Target {
  url: string;
  caPem: string;
  adminToken: string;
}

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const ESTABLISH_TIMEOUT_MS = 10_000;

export async function installCrds(server: Target, core: ServerCore, crds: KubeObject[]): Promise<void> {
  for (const crd of crds) await createCrd(server, crd);
  const deadline = Date.now() + ESTABLISH_TIMEOUT_MS;
  for (const crd of crds) {
    const spec = crd.spec as { group: string; names: { plural: string } };
    while (!core.registry.byResource(spec.group, spec.names.plural)) {
      if (Date.now() > deadline)
        throw new Error(
          `CustomResourceDefinition ${crd.metadata.name}: not Established within ${ESTABLISH_TIMEOUT_MS} ms (check its names for conflicts)`,
        );
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

function createCrd(server: Target, crd: KubeObject): Promise<void> {
  const body = JSON.stringify(crd);
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${CRD_PATH}`,
      {
        method: 'POST',
        ca: server.caPem,
        headers: { Authorization: `Bearer ${server.adminToken}`, 'Content-Type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          if ((res.statusCode ?? 0) < 300) resolve();
          else
            reject(
              new Error(
                `CustomResourceDefinition ${crd.metadata.name}: the API server refused it (${res.statusCode}): ${text}`,
              ),
            );
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
