// `modelplane explain aimsvc/NAME`: the walk down an AIMService's chain stops at the first object that is not
// ready and quotes its condition; a Running service says so; the command has --help and refuses other targets.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import {
  type ChainObject,
  chainOf,
  explainChain,
  firstProblem,
  type ServiceChain,
} from '../../src/cli/view/explain-chain.ts';

type Cond = [type: string, status: string, reason: string, message: string];
const obj = (kind: string, name: string, status: string, conds: Cond[]) => ({
  apiVersion: 'aim.eai.amd.com/v1alpha1',
  kind,
  metadata: { name, namespace: 'ml' },
  spec: {},
  status: {
    status,
    conditions: conds.map(([type, s, reason, message]) => ({ type, status: s, reason, message })),
  },
});
const service = (status: string, conds: Cond[]) => obj('AIMService', 'chat', status, conds);
const ready: Cond = ['Ready', 'True', 'AllComponentsReady', ''];

describe('modelplane explain', () => {
  it('a download stuck on an unschedulable pod: the walk reaches the artifact and quotes its pod condition', () => {
    const chain: ServiceChain = {
      service: service('Starting', [
        ['ModelReady', 'True', 'ModelResolved', ''],
        ['TemplateReady', 'True', 'Resolved', ''],
        ['CacheReady', 'Unknown', 'CacheNotReady', 'waiting for AIMTemplateCache tc'],
        ['Ready', 'False', 'Progressing', 'Waiting for components to become ready: Cache'],
      ]),
      model: obj('AIMModel', 'qwen', 'Ready', [ready]),
      template: obj('AIMServiceTemplate', 'qwen-tpl', 'Ready', [ready]),
      cache: obj('AIMTemplateCache', 'tc', 'Progressing', [['ArtifactsReady', 'Unknown', 'CachesNotReady', 'x']]),
      artifacts: [
        obj('AIMArtifact', 'qwen-art', 'Pending', [
          ['DownloadJobReady', 'Unknown', 'Downloading', 'download Job ml/qwen-art-dl-1 is downloading'],
          ['DownloadJobPodsReady', 'Unknown', 'FailedScheduling', 'pod qwen-art-dl-1-x: 0/6 nodes are available'],
        ]),
      ],
    };
    const text = explainChain(chain);
    // the cache only waits for its artifact: the artifact says why, and its pod's condition says more than
    // its Job's (still "downloading")
    assert.equal(
      text,
      'AIMService ml/chat is Starting. Walking AIMService ml/chat → AIMModel ml/qwen → AIMServiceTemplate ml/qwen-tpl → ' +
        'AIMTemplateCache ml/tc → AIMArtifact ml/qwen-art: AIMArtifact ml/qwen-art (Pending) has ' +
        'DownloadJobPodsReady=Unknown FailedScheduling: pod qwen-art-dl-1-x: 0/6 nodes are available.',
    );
    // the artifact is ready and the cache still waits: the cache's own condition
    const artifactOk = { ...chain, artifacts: [obj('AIMArtifact', 'qwen-art', 'Ready', [ready])] };
    assert.match(
      explainChain(artifactOk),
      /→ AIMTemplateCache ml\/tc: AIMTemplateCache ml\/tc \(Progressing\) has ArtifactsReady=Unknown CachesNotReady: x\.$/,
    );
    // a cache failing because an artifact failed: the artifact's failure, before another artifact's wait
    const failing = {
      ...chain,
      cache: obj('AIMTemplateCache', 'tc', 'Failed', [['ArtifactsReady', 'False', 'ArtifactFailed', 'one failed']]),
      artifacts: [
        obj('AIMArtifact', 'a1', 'Progressing', [['DownloadJobReady', 'Unknown', 'Downloading', '40 %']]),
        obj('AIMArtifact', 'a2', 'Failed', [['DownloadJobReady', 'False', 'AuthError', 'the token was refused']]),
      ],
    };
    assert.match(
      explainChain(failing),
      /AIMArtifact ml\/a2 \(Failed\) has DownloadJobReady=False AuthError: the token was refused\.$/,
    );
    assert.equal(text.split('\n').length, 1, 'one paragraph');
  });

  it('a failed condition wins over a waiting one', () => {
    const a = obj('AIMArtifact', 'a', 'Failed', [
      ['DownloadJobReady', 'Unknown', 'Downloading', ''],
      ['DownloadJobPodsReady', 'False', 'ImagePullAuthFailure', 'pod a-dl: pull refused'],
    ]);
    assert.equal(firstProblem(a)?.reason, 'ImagePullAuthFailure');
  });

  it('the predictor: its own condition once the chain above is ready', () => {
    const chain: ServiceChain = {
      service: service('Failed', [
        ['ModelReady', 'True', 'ModelResolved', ''],
        ['TemplateReady', 'True', 'Resolved', ''],
        [
          'InferenceServicePodsReady',
          'False',
          'PodOOMKilled',
          'pod chat-predictor-1: OOMKilled; raise the memory limit',
        ],
      ]),
      artifacts: [],
    };
    assert.match(
      explainChain(chain),
      /Its model, template and cache are ready; AIMService ml\/chat \(Failed\) has InferenceServicePodsReady=False PodOOMKilled: pod chat-predictor-1: OOMKilled; raise the memory limit\./,
    );
  });

  it("a predictor's pull refused: the pod condition with the Secret to add, not KServe's relay of it", () => {
    const svc = service('Failed', [
      ['ModelReady', 'True', 'ModelResolved', ''],
      ['TemplateReady', 'True', 'Resolved', ''],
      ['CacheReady', 'True', 'CacheReady', ''],
      ['InferenceServiceReady', 'False', 'ModelLoadFailed', 'the model failed to load: ImagePullBackOff'],
      ['InferenceServicePodsReady', 'False', 'ImagePullAuthFailure', 'pod p: pull refused; create a Secret …'],
    ]);
    assert.match(
      explainChain({ service: svc, artifacts: [] }),
      /has InferenceServicePodsReady=False ImagePullAuthFailure: pod p: pull refused; create a Secret …\.$/,
    );
  });

  it('a service by image walks into the model with its image before the service resolved it', () => {
    const svc = {
      ...service('Failed', [['ModelReady', 'False', 'ModelNotReady', 'AIMModel ml/private-1 is Failed']]),
      spec: { model: { image: 'org/private:1' } },
    };
    const models = [
      { ...obj('AIMModel', 'other', 'Ready', [ready]), spec: { image: 'org/other:1' } },
      {
        ...obj('AIMModel', 'private-1', 'Failed', [
          ['ImageMetadataReady', 'False', 'ImagePullAuthFailure', 'pull secret ml/regcred not found: create it'],
        ]),
        spec: { image: 'org/private:1' },
      },
    ];
    const lookup = {
      get: () => undefined,
      list: (kind: string, namespace?: string) =>
        kind === 'AIMModel' && namespace === 'ml' ? (models as ChainObject[]) : [],
    };
    assert.equal(
      explainChain(chainOf(svc as ChainObject, lookup)),
      'AIMService ml/chat is Failed. Walking AIMService ml/chat → AIMModel ml/private-1: AIMModel ml/private-1 ' +
        '(Failed) has ImageMetadataReady=False ImagePullAuthFailure: pull secret ml/regcred not found: create it.',
    );
  });

  it('a Running service', () => {
    assert.equal(
      explainChain({
        service: service('Running', [ready, ['ModelReady', 'True', 'ModelResolved', '']]),
        artifacts: [],
      }),
      'AIMService ml/chat is Running: every link of its chain is ready.',
    );
  });

  it('--help, and a target that is not aimsvc/NAME', () => {
    const help = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'explain', '--help'], {
      encoding: 'utf8',
    });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /Usage: modelplane explain \[options\] <resource>/);
    const bad = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'explain', 'pod/x'], {
      encoding: 'utf8',
    });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /"pod\/x" is not aimsvc\/NAME/);
  });
});
