// The process the crash test kills: a store with persistence in DIR, and WORKERS concurrent clients that
// each create, update and delete their own ConfigMaps. Every write is announced on stdout before commit
// ("begin …") and acknowledged only after commit returned and flush() resolved ("ack … <rv>"), the order in
// which the API server answers a client. Lines go out with writeSync on fd 1: the child's stdout may be a
// socket, which process.stdout writes asynchronously, and a line still queued in the child at SIGKILL would
// never reach the parent (seen under heavy load as restored writes nobody announced).
//
//   node --import tsx child.ts DIR ROUND CREATES WORKERS DURABILITY SNAPSHOT_AFTER_WRITES
import { writeSync } from 'node:fs';
import { ObjectStore } from '../../src/storage/store.ts';
import { type Durability, openPersistence } from '../../src/storage/wal/persistence.ts';
import { CONFIGMAPS, configMap } from './fixture.ts';

const [dir, round, creates, workers, durability, snapshotAfterWrites] = process.argv.slice(2);
const persistence = openPersistence(dir!, {
  durability: durability as Durability,
  snapshotAfterWrites: Number(snapshotAfterWrites),
});
/** one line on stdout, in the kernel's pipe before this returns */
function say(line: string): void {
  const bytes = Buffer.from(line);
  let off = 0;
  while (off < bytes.length) {
    try {
      off += writeSync(1, bytes, off);
    } catch (err) {
      // a non-blocking socket whose buffer is full: the parent is behind, try again until it reads
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    }
  }
}

const store = new ObjectStore();
const report = persistence.load(store);
say(`loaded ${report.rv} ${report.objects}\n`);

let payloadSeq = 0;
async function client(worker: number, count: number): Promise<void> {
  const mine: string[] = [];
  let created = 0;
  while (created < count) {
    const roll = Math.random();
    const payload = `r${round}-p${payloadSeq++}`;
    let op: 'create' | 'update' | 'delete';
    let name: string;
    if (mine.length > 2 && roll < 0.15) {
      op = 'update';
      name = mine[Math.floor(Math.random() * mine.length)]!;
    } else if (mine.length > 2 && roll < 0.25) {
      op = 'delete';
      name = mine.splice(Math.floor(Math.random() * mine.length), 1)[0]!;
    } else {
      op = 'create';
      name = `r${round}-w${worker}-${created++}`;
      mine.push(name);
    }
    say(`begin ${worker} ${op} ${name} ${payload}\n`);
    const stored =
      op === 'delete'
        ? store.commit(CONFIGMAPS, 'DELETED', store.get(CONFIGMAPS, 'default', name)!)
        : store.commit(CONFIGMAPS, op === 'create' ? 'ADDED' : 'MODIFIED', configMap(name, payload));
    await persistence.flush();
    say(`ack ${worker} ${op} ${name} ${stored.metadata.resourceVersion}\n`);
    // a server handles each request in its own turn of the event loop, which is when snapshots start
    await new Promise((r) => setImmediate(r));
  }
}

const perWorker = Math.ceil(Number(creates) / Number(workers));
await Promise.all(Array.from({ length: Number(workers) }, (_, w) => client(w, perWorker)));
await persistence.close();
say('done\n');
