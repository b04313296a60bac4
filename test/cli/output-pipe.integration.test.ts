// `modelplane crds | head`: a reader that closes the pipe early ends the command quietly (exit 0, nothing on
// stderr), as Unix tools do, instead of an unhandled EPIPE with a stack trace. The CRDs are about 200 KB, more
// than a pipe buffers, so the command is still writing when `head` exits. Run through bash for a real pipe
// (Node's own child stdio is a socket pair, which does not show it).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';

describe('modelplane output into a pipe closed early', () => {
  it('crds | head -c 100: exit 0 and nothing on stderr', async () => {
    const script = `"${process.execPath}" "${resolve('bin/modelplane.js')}" crds | head -c 100; exit \${PIPESTATUS[0]}`;
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
      execFile('bash', ['-c', script], (err, stdout, stderr) =>
        done({ code: err ? Number(err.code) : 0, stdout, stderr }),
      ),
    );
    assert.match(stdout, /^---\napiVersion: apiextensions\.k8s\.io\/v1\n/);
    assert.equal(stderr, '');
    assert.equal(code, 0);
  });
});
