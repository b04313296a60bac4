// The process the crash test kills: a store with persistence in DIR, and WORKERS concurrent clients that
// each create, update and delete their own ConfigMaps. Every write is announced on stdout before commit
// ("begin …") and acknowledged only after commit returned and flush() resolved ("ack … <rv>"), the order in
// which the API server answers a client. stdout is a pipe, which Node writes synchronously on Linux, so a
// line printed before SIGKILL reaches the parent.
//
//   node --import tsx persistence-child.ts DIR ROUND CREATES WORKERS DURABILITY SNAPSHOT_AFTER_WRITES
import { ObjectStore } from '../src/storage/store.ts';
import { type Durability, openPersistence } from '../src/storage/wal/persistence.ts';
import { CONFIGMAPS, configMap } from './persistence-fixture.ts';

const [dir, round, creates, workers, durability, snapshotAfterWrites] = process.argv.slice(2);
const persistence = openPersistence(dir!, {
  durability: durability as Durability,
  snapshotAfterWrites: Number(snapshotAfterWrites),
});
const store = new ObjectStore();
const report = persistence.load(store);
process.stdout.write(`loaded ${report.rv} ${report.objects}\n`);

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
    process.stdout.write(`begin ${worker} ${op} ${name} ${payload}\n`);
    const stored =
      op === 'delete'
        ? store.commit(CONFIGMAPS, 'DELETED', store.get(CONFIGMAPS, 'default', name)!)
        : store.commit(CONFIGMAPS, op === 'create' ? 'ADDED' : 'MODIFIED', configMap(name, payload));
    await persistence.flush();
    process.stdout.write(`ack ${worker} ${op} ${name} ${stored.metadata.resourceVersion}\n`);
    // a server handles each request in its own turn of the event loop, which is when snapshots start
    await new Promise((r) => setImmediate(r));
  }
}

const perWorker = Math.ceil(Number(creates) / Number(workers));
await Promise.all(Array.from({ length: Number(workers) }, (_, w) => client(w, perWorker)));
await persistence.close();
process.stdout.write('done\n');
