// The Dockerfile reader the image replay runs on (test/deploy/dockerfile.ts): what it takes from each
// instruction, what it refuses by name, and how a container's command and args map onto the image's
// ENTRYPOINT and CMD the way Kubernetes does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { containerCommand, parseDockerfile } from './dockerfile.ts';

const TWO_STAGES = `# syntax=docker/dockerfile:1
FROM node:20-slim AS build
WORKDIR /build
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci \\
    --omit=dev
COPY src ./src

FROM node:20-slim
ENV NODE_ENV=production A="two words"
ENV LEGACY spaced value
WORKDIR /app
COPY --from=build /build/dist ./dist
USER 1000:1000
ENTRYPOINT ["node", "/app/dist/modelplane.mjs"]
CMD ["--help"]
`;

describe('parseDockerfile', () => {
  it('reads stages, their steps, ENV in both forms, WORKDIR-relative destinations and the exec forms', () => {
    const df = parseDockerfile(TWO_STAGES);
    assert.deepEqual(
      df.stages.map((s) => [s.name, s.from]),
      [
        ['build', 'node:20-slim'],
        ['1', 'node:20-slim'],
      ],
    );
    const [build, image] = df.stages;
    assert.equal(df.image, image);
    assert.deepEqual(build!.steps, [
      { kind: 'COPY', from: undefined, sources: ['package.json', 'package-lock.json'], dest: '/build/' },
      {
        kind: 'RUN',
        command: 'npm ci --omit=dev',
        cacheMounts: ['/root/.npm'],
        workdir: '/build',
        env: {},
      },
      { kind: 'COPY', from: undefined, sources: ['src'], dest: '/build/src' },
    ]);
    assert.deepEqual(image!.env, { NODE_ENV: 'production', A: 'two words', LEGACY: 'spaced value' });
    assert.deepEqual(image!.steps, [{ kind: 'COPY', from: 'build', sources: ['/build/dist'], dest: '/app/dist' }]);
    assert.equal(image!.user, '1000:1000');
    assert.deepEqual(image!.entrypoint, ['node', '/app/dist/modelplane.mjs']);
    assert.deepEqual(image!.cmd, ['--help']);
    // the build stage's settings are not the image's
    assert.deepEqual(build!.env, {});
    assert.equal(build!.entrypoint.length, 0);
  });

  it('refuses what the replay does not implement, naming it', () => {
    const refused: Array<[string, RegExp]> = [
      ['FROM a\nADD x /x', /ADD x \/x: the replay does not implement ADD/],
      ['FROM a\nARG V=1', /does not implement ARG/],
      ['FROM a\nCOPY src/*.ts ./', /does not expand wildcards/],
      ['FROM a\nCOPY --from=nope /x ./', /--from=nope: no earlier stage has that name/],
      ['FROM a\nCOPY a b dest', /several sources the destination must end with \//],
      ['FROM a\nRUN --mount=type=secret,id=x true', /only type=cache mounts/],
      ['WORKDIR /x\nFROM a', /WORKDIR before the first FROM/],
      ['# nothing', /no FROM/],
    ];
    for (const [text, error] of refused) assert.throws(() => parseDockerfile(text), error, text);
  });
});

describe('containerCommand', () => {
  const image = parseDockerfile(TWO_STAGES).image;

  it('args replace CMD and keep the ENTRYPOINT, mapped from the WORKDIR onto the folder; node is this Node', () => {
    assert.deepEqual(containerCommand(image, '/tmp/app', { args: ['run', '--leader-elect'] }), {
      file: process.execPath,
      args: ['/tmp/app/dist/modelplane.mjs', 'run', '--leader-elect'],
      cwd: '/tmp/app',
    });
    assert.deepEqual(containerCommand(image, '/tmp/app').args, ['/tmp/app/dist/modelplane.mjs', '--help']);
  });

  it('a command replaces the ENTRYPOINT and drops CMD, as in Kubernetes', () => {
    assert.deepEqual(containerCommand(image, '/x', { command: ['/bin/sh', '-c', 'ls /app'] }), {
      file: '/bin/sh',
      args: ['-c', 'ls /app'],
      cwd: '/x',
    });
    // only a path under the WORKDIR moves; /application is not /app
    assert.deepEqual(containerCommand(image, '/x', { command: ['node', '/application/x.mjs', '/app/y'] }).args, [
      '/application/x.mjs',
      '/x/y',
    ]);
  });
});
