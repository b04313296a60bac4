import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ObjectStore } from '../../src/storage/store.ts';
import { logPath, snapshotPath } from '../../src/storage/wal/data-files.ts';
import {
  DataDirError,
  DataFileCorruptError,
  openPersistence,
  type PersistenceOptions,
} from '../../src/storage/wal/persistence.ts';
import { encodeRecord, HEADER_BYTES } from '../../src/storage/wal/record-codec.ts';
import { CONFIGMAPS, configMap, dump, logRecords, NAMESPACES, namespace, tempDataDir } from './fixture.ts';

function open(dir: string, opts: PersistenceOptions = {}) {
  const warnings: string[] = [];
  const p = openPersistence(dir, { warn: (m) => warnings.push(m), ...opts });
  const store = new ObjectStore();
  try {
    const report = p.load(store);
    return { p, store, report, warnings };
  } catch (e) {
    void p.close();
    throw e;
  }
}

/** A directory holding a few creates, an update and a delete across two resources, closed cleanly. */
async function populated(opts: PersistenceOptions = {}) {
  const dir = tempDataDir();
  const { p, store } = open(dir, opts);
  store.commit(NAMESPACES, 'ADDED', namespace('team-a'));
  for (let i = 0; i < 5; i++) store.commit(CONFIGMAPS, 'ADDED', configMap(`cm-${i}`, `v${i}`));
  const updated = store.commit(CONFIGMAPS, 'MODIFIED', configMap('cm-1', 'changed'));
  store.commit(CONFIGMAPS, 'DELETED', store.get(CONFIGMAPS, 'default', 'cm-3')!);
  await p.flush();
  const expected = dump(store);
  const lastRv = store.currentRv();
  await p.close();
  return { dir, expected, lastRv, updated };
}

const files = (dir: string) =>
  readdirSync(dir)
    .filter((n) => n !== 'LOCK')
    .sort();

describe('persistence: append and replay', () => {
  for (const durability of ['batch', 'always'] as const) {
    it(`restores every object with its resourceVersion (${durability})`, async () => {
      const { dir, expected, lastRv, updated } = await populated({ durability });
      const { p, store, report } = open(dir, { durability });
      assert.deepEqual(dump(store), expected);
      assert.equal(store.get(CONFIGMAPS, 'default', 'cm-1'), store.list(CONFIGMAPS)[1]);
      assert.equal(
        store.get(CONFIGMAPS, 'default', 'cm-1')!.metadata.resourceVersion,
        updated.metadata.resourceVersion,
      );
      assert.equal(store.get(CONFIGMAPS, 'default', 'cm-3'), undefined);
      assert.equal(report.objects, 5);
      assert.equal(report.persistedRv, lastRv);
      assert.ok(store.currentRv() >= lastRv);
      const next = store.commit(CONFIGMAPS, 'ADDED', configMap('after', 'restart'));
      assert.ok(Number(next.metadata.resourceVersion) > lastRv);
      await p.close();
    });
  }

  it('moves the counter past every resourceVersion a batch could have exposed, and keeps it across restarts', async () => {
    const { dir, lastRv } = await populated({ maxPendingWrites: 100 });
    const first = open(dir, { maxPendingWrites: 100 });
    assert.equal(first.store.currentRv(), lastRv + 100);
    await first.p.close();
    const second = open(dir, { maxPendingWrites: 100 });
    assert.equal(second.report.persistedRv, lastRv + 100, 'the moved counter is itself persisted');
    assert.equal(second.store.currentRv(), lastRv + 200);
    await second.p.close();
  });

  it('keeps the counter exactly in always mode, where nothing is visible before it is durable', async () => {
    const { dir, lastRv } = await populated({ durability: 'always' });
    const { p, store } = open(dir, { durability: 'always' });
    assert.equal(store.currentRv(), lastRv);
    await p.close();
  });

  it('compacts history: a watch resumed from a resourceVersion before the restart gets 410', async () => {
    const { dir, lastRv } = await populated();
    const { p, store } = open(dir);
    assert.throws(
      () => store.watch(CONFIGMAPS, lastRv - 1, () => {}),
      (e: Error & { code?: number }) => e.code === 410,
    );
    assert.throws(
      () => store.watch('/never-written', 1, () => {}),
      (e: Error & { code?: number }) => e.code === 410,
    );
    const seen: string[] = [];
    store.watch(CONFIGMAPS, store.currentRv(), (e) => seen.push(e.object.metadata.name!));
    store.commit(CONFIGMAPS, 'ADDED', configMap('fresh', 'x'));
    assert.deepEqual(seen, ['fresh']);
    await p.close();
  });

  it('flush() resolves for many writes waiting on the same group fdatasync', async () => {
    const dir = tempDataDir();
    const { p, store } = open(dir);
    const flushes: Promise<void>[] = [];
    for (let i = 0; i < 300; i++) {
      store.commit(CONFIGMAPS, 'ADDED', configMap(`cm-${i}`, String(i), 256));
      flushes.push(p.flush());
    }
    await Promise.all(flushes);
    await p.close();
    assert.equal(logRecords(logPath(dir, 1)).length, 300);
  });

  it('refuses writes after close() and before load()', async () => {
    const dir = tempDataDir();
    const p = openPersistence(dir, { warn: () => {} });
    const store = new ObjectStore();
    store.sink = p.sink;
    assert.throws(() => store.commit(CONFIGMAPS, 'ADDED', configMap('early', 'x')), /before load\(\)/);
    await p.close();
    const reopened = open(dir);
    await reopened.p.close();
    assert.throws(() => reopened.store.commit(CONFIGMAPS, 'ADDED', configMap('late', 'x')), /is closed/);
  });

  it('refuses to load into a store that already holds objects', async () => {
    const dir = tempDataDir();
    const p = openPersistence(dir, { warn: () => {} });
    const store = new ObjectStore();
    store.commit(CONFIGMAPS, 'ADDED', configMap('existing', 'x'));
    assert.throws(() => p.load(store), /already holds objects/);
    await p.close();
  });
});

describe('persistence: snapshots and log rotation', () => {
  it('snapshot() replaces the log with a snapshot plus a new log, and both replay', async () => {
    const { dir, expected } = await populated();
    const { p, store } = open(dir);
    await p.snapshot();
    assert.deepEqual(files(dir), [snapshotPath(dir, 2), logPath(dir, 2)].map((f) => f.slice(dir.length + 1)).sort());
    const after = store.commit(CONFIGMAPS, 'MODIFIED', configMap('cm-0', 'after-snapshot'));
    store.commit(CONFIGMAPS, 'DELETED', store.get(CONFIGMAPS, 'default', 'cm-4')!);
    await p.close();
    const reloaded = open(dir);
    assert.equal(reloaded.report.snapshot, snapshotPath(dir, 2));
    const want = {
      ...expected,
      [CONFIGMAPS]: expected[CONFIGMAPS]!.filter((o) => o.metadata.name !== 'cm-4').map((o) =>
        o.metadata.name === 'cm-0' ? after : o,
      ),
    };
    assert.deepEqual(dump(reloaded.store), want);
    await reloaded.p.close();
  });

  it('rotates automatically after snapshotAfterWrites and keeps only the newest generation', async () => {
    const dir = tempDataDir();
    const opts = { snapshotAfterWrites: 50 };
    const { p, store } = open(dir, opts);
    for (let i = 0; i < 420; i++) {
      store.commit(
        CONFIGMAPS,
        i % 7 === 6 ? 'MODIFIED' : 'ADDED',
        configMap(`cm-${i % 7 === 6 ? i - 1 : i}`, String(i), 512),
      );
      if (i % 10 === 0) await p.flush();
      if (i % 25 === 0) await new Promise((r) => setImmediate(r));
    }
    await p.snapshot();
    const expected = dump(store);
    await p.close();
    const names = files(dir);
    assert.equal(names.filter((n) => n.endsWith('.snap')).length, 1, names.join(' '));
    assert.equal(names.filter((n) => n.endsWith('.log')).length, 1, names.join(' '));
    assert.ok(Number(/snapshot-(\d+)/.exec(names.join(' '))![1]) > 3, `several rotations happened: ${names.join(' ')}`);
    const reloaded = open(dir, opts);
    assert.deepEqual(dump(reloaded.store), expected);
    await reloaded.p.close();
  });

  it('rotates after snapshotAfterBytes', async () => {
    const dir = tempDataDir();
    const { p, store } = open(dir, { snapshotAfterBytes: 20_000 });
    for (let i = 0; i < 30; i++) {
      store.commit(CONFIGMAPS, 'ADDED', configMap(`cm-${i}`, String(i)));
      await new Promise((r) => setImmediate(r));
    }
    await p.close();
    assert.ok(
      files(dir).some((n) => n.endsWith('.snap')),
      files(dir).join(' '),
    );
  });

  it('ignores an interrupted snapshot (.tmp) and replays the older chain instead', async () => {
    const { dir, expected } = await populated();
    writeFileSync(`${snapshotPath(dir, 2)}.tmp`, 'half a snapshot');
    writeFileSync(logPath(dir, 2), readFileSync(logPath(dir, 1)).subarray(0, 8));
    const { p, store } = open(dir);
    assert.deepEqual(dump(store), expected);
    assert.ok(!files(dir).some((n) => n.endsWith('.tmp')));
    await p.close();
  });
});

describe('persistence: damaged data files', () => {
  const tornTails: Array<[string, (valid: Buffer) => Buffer]> = [
    ['part of a header', () => Buffer.from([1, 2, 3, 4, 5])],
    [
      'a header and part of its payload',
      () => encodeRecord(Buffer.from('{"t":"put","k":"/configmaps","rv":99}')).subarray(0, HEADER_BYTES + 10),
    ],
    [
      'a whole last record with a bad payload checksum',
      () => {
        const r = encodeRecord(Buffer.from('{"t":"rv","rv":1000}'));
        r[r.length - 2] ^= 0xff;
        return r;
      },
    ],
    ['zeros (file size extended, data never written)', () => Buffer.alloc(4096)],
  ];
  for (const [name, tail] of tornTails) {
    it(`cuts off a torn last record with a warning naming the offset: ${name}`, async () => {
      const { dir, expected } = await populated();
      const path = logPath(dir, 1);
      const validSize = statSync(path).size;
      appendFileSync(path, tail(readFileSync(path)));
      const { p, store, report, warnings } = open(dir);
      assert.deepEqual(dump(store), expected);
      assert.equal(report.tornTail?.offset, validSize);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, new RegExp(`${path}: cut off an incomplete last record at byte offset ${validSize} `));
      assert.ok(
        statSync(path).size >= validSize && logRecords(path).length > 0,
        'the torn bytes are gone: the log scans clean',
      );
      await p.close();
      assert.deepEqual(dump(open(dir).store), expected, 'writes appended after the cut replay too');
    });
  }

  function corruptRecord(path: string, index: number, at: (r: { offset: number; length: number }) => number): number {
    const records = logRecords(path);
    const r = records[index]!;
    const buf = readFileSync(path);
    buf[at({ offset: r.offset, length: r.payload.length })] ^= 0x55;
    writeFileSync(path, buf);
    return r.offset;
  }

  const midFile: Array<[string, (r: { offset: number; length: number }) => number]> = [
    ['a payload byte', (r) => r.offset + HEADER_BYTES + Math.floor(r.length / 2)],
    ['the length field', (r) => r.offset + 1],
    ['the header checksum', (r) => r.offset + 9],
  ];
  for (const [what, at] of midFile) {
    it(`fails startup naming the path and offset when ${what} of a middle record is damaged`, async () => {
      const { dir } = await populated();
      const path = logPath(dir, 1);
      const offset = corruptRecord(path, 3, at);
      assert.throws(
        () => open(dir),
        (e: Error) => {
          assert.ok(e instanceof DataFileCorruptError, String(e));
          assert.equal(e.path, path);
          assert.equal(e.offset, offset);
          assert.match(
            e.message,
            new RegExp(`^data file ${path} is corrupt at byte offset ${offset}: .*an intact record follows`),
          );
          return true;
        },
      );
    });
  }

  it('fails startup when a record is checksummed but not valid JSON', async () => {
    const dir = tempDataDir();
    await open(dir).p.close();
    const path = logPath(dir, 1);
    const size = statSync(path).size;
    appendFileSync(
      path,
      Buffer.concat([encodeRecord(Buffer.from('{not json')), encodeRecord(Buffer.from('{"t":"rv","rv":5}'))]),
    );
    assert.throws(
      () => open(dir),
      new RegExp(`data file ${path} is corrupt at byte offset ${size}: record payload is not valid JSON`),
    );
  });

  it('fails startup when resourceVersions in the log go backwards', async () => {
    const { dir, lastRv } = await populated({ durability: 'always' });
    const path = logPath(dir, 1);
    const size = statSync(path).size;
    appendFileSync(path, encodeRecord(Buffer.from(JSON.stringify({ t: 'rv', rv: lastRv - 1 }))));
    assert.throws(
      () => open(dir),
      new RegExp(
        `${path} is corrupt at byte offset ${size}: log record has resourceVersion ${lastRv - 1}, not after the preceding ${lastRv}`,
      ),
    );
  });

  it('fails startup when a sealed (older) log ends in a damaged record', async () => {
    const { dir } = await populated();
    const first = open(dir);
    await first.p.close();
    // a newer log exists, so the old one can no longer be the crash point
    writeFileSync(logPath(dir, 2), readFileSync(logPath(dir, 1)).subarray(0, 8));
    const path = logPath(dir, 1);
    const last = logRecords(path).at(-1)!;
    truncateSync(path, statSync(path).size - 3);
    assert.throws(
      () => open(dir),
      (e: Error) =>
        e instanceof DataFileCorruptError &&
        e.path === path &&
        e.offset === last.offset &&
        /truncated or damaged at its end/.test(e.message),
    );
  });

  const snapshotDamage: Array<[string, (buf: Buffer) => Buffer, RegExp]> = [
    [
      'truncated before its trailer',
      (b) => b.subarray(0, b.length - 20),
      /is corrupt at byte offset \d+: .*(truncated|end of the file)/,
    ],
    [
      'a flipped byte inside',
      (b) => {
        const c = Buffer.from(b);
        c[Math.floor(c.length / 2)] ^= 0x55;
        return c;
      },
      /is corrupt at byte offset \d+: .*checksum mismatch/,
    ],
    [
      'a wrong file header',
      (b) => Buffer.concat([Buffer.from('garbage!'), b.subarray(8)]),
      /is corrupt at byte offset 0: file header is "garbage!"/,
    ],
    ['emptied', () => Buffer.alloc(0), /is corrupt at byte offset 0: file is 0 bytes/],
  ];
  for (const [what, damage, message] of snapshotDamage) {
    it(`fails startup naming the snapshot when it is ${what}`, async () => {
      const { dir } = await populated();
      const { p } = open(dir);
      await p.snapshot();
      await p.close();
      const path = snapshotPath(dir, 2);
      writeFileSync(path, damage(readFileSync(path)));
      assert.throws(
        () => open(dir),
        (e: Error) => e instanceof DataFileCorruptError && e.path === path && message.test(e.message),
      );
    });
  }

  it('fails startup when a log in the chain is missing', async () => {
    const { dir } = await populated();
    writeFileSync(logPath(dir, 3), readFileSync(logPath(dir, 1)).subarray(0, 8));
    assert.throws(
      () => open(dir),
      (e: Error) =>
        e instanceof DataDirError && e.message.includes(`${logPath(dir, 2)} is missing but ${logPath(dir, 3)} exists`),
    );
  });

  it('fails startup when the first log is missing and no snapshot covers it', async () => {
    const { dir } = await populated();
    writeFileSync(logPath(dir, 2), readFileSync(logPath(dir, 1)).subarray(0, 8));
    rmSync(logPath(dir, 1));
    assert.throws(
      () => open(dir),
      (e: Error) =>
        e instanceof DataDirError &&
        e.message.includes(`${logPath(dir, 1)} is missing`) &&
        e.message.includes('no snapshot covers it'),
    );
  });

  it('fails startup when the snapshot exists but its log does not', async () => {
    const { dir } = await populated();
    const { p } = open(dir);
    await p.snapshot();
    await p.close();
    rmSync(logPath(dir, 2));
    assert.throws(
      () => open(dir),
      (e: Error) => e instanceof DataDirError && e.message.includes(`${logPath(dir, 2)} is missing`),
    );
  });
});

describe('persistence: directory lock', () => {
  it('refuses a directory held by a live process and takes over one left by a dead process', async () => {
    const dir = tempDataDir();
    const { p } = open(dir);
    const alive = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `
      import { openPersistence } from ${JSON.stringify(join(process.cwd(), 'packages/apiserver/src/storage/wal/persistence.ts'))};
      try { openPersistence(${JSON.stringify(dir)}); console.log('opened'); } catch (e) { console.log(e.message); }
    `,
      ],
      { encoding: 'utf8' },
    );
    assert.match(alive.stdout, new RegExp(`data directory ${dir}: in use by process ${process.pid}`));
    await p.close();
    const dead = spawnSync('true');
    writeFileSync(join(dir, 'LOCK'), `${dead.pid}\n`);
    const taken = open(dir);
    assert.equal(readFileSync(join(dir, 'LOCK'), 'utf8'), `${process.pid}\n`);
    await taken.p.close();
  });
});
