import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../src/client/errors.ts';
import { Logger, parseLogLevel } from '../src/log.ts';

function capture(level: Parameters<typeof parseLogLevel>[0]) {
  const lines: string[] = [];
  const log = new Logger({ app: 'test' }, parseLogLevel(level), { write: (l) => lines.push(l) });
  return { log, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('Logger', () => {
  it('writes one JSON object per line with ts, level, msg and bound fields', () => {
    const { log, lines, records } = capture('info');
    log.child({ controller: 'widget' }).child({ object: 'ns/w' }).info('reconciled', { durationMs: 3 });
    assert.equal(lines.length, 1);
    assert.ok(lines[0]!.endsWith('\n'));
    const r = records()[0]!;
    assert.equal(r.level, 'info');
    assert.equal(r.msg, 'reconciled');
    assert.equal(r.app, 'test');
    assert.equal(r.controller, 'widget');
    assert.equal(r.object, 'ns/w');
    assert.equal(r.durationMs, 3);
    assert.ok(!Number.isNaN(Date.parse(String(r.ts))));
  });

  const levels: Array<[configured: string | undefined, written: string[]]> = [
    ['debug', ['debug', 'info', 'warn', 'error']],
    ['info', ['info', 'warn', 'error']],
    [undefined, ['info', 'warn', 'error']],
    ['bogus', ['info', 'warn', 'error']],
    ['WARN', ['warn', 'error']],
    ['error', ['error']],
    ['silent', []],
  ];
  for (const [configured, written] of levels) {
    it(`level ${configured ?? '(unset)'} writes ${written.join(', ') || 'nothing'}`, () => {
      const { log, records } = capture(configured);
      log.debug('d');
      log.info('i');
      log.warn('w');
      log.error('e');
      assert.deepEqual(
        records().map((r) => r.level),
        written,
      );
    });
  }

  it('serialises errors with name, message, code and reason', () => {
    const { log, records } = capture('info');
    log.error('failed', {
      error: new ApiError({ code: 503, reason: 'ServiceUnavailable', message: 'down', verb: 'GET', path: '/api' }),
    });
    assert.deepEqual(records()[0]!.error, {
      name: 'ApiError',
      message: 'GET /api: down',
      code: 503,
      reason: 'ServiceUnavailable',
    });
  });

  it('survives circular fields', () => {
    const { log, records } = capture('info');
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    log.info('loop', { loop });
    assert.equal(records()[0]!.logError, 'fields not serialisable');
  });
});
