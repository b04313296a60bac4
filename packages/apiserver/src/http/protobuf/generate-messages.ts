// Development tool, not loaded by the server: regenerates messages.ts from a kubectl binary.
//
//   node --import tsx packages/apiserver/src/http/protobuf/generate-messages.ts .tools/bin/kubectl > packages/apiserver/src/http/protobuf/messages.ts
//
// Why the binary: it is the exact version whose request bodies we decode, and it carries both halves of
// what a decoder needs. (1) gogo-protobuf registers each k8s.io generated.proto as a gzipped
// FileDescriptorProto: field numbers, types, and the gogoproto `nullable` option that tells a Go pointer
// (presence kept on the wire) from a plain value. (2) Go's reflection data keeps every struct field's tag,
// and the `json:"...,omitempty"` half decides whether a zero value is written in kube's JSON. Field
// numbers are cross-checked against the protobuf half of the same tags.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { protoToShort, ROOT_MESSAGES, SPECIAL_MESSAGES } from './message-names.ts';
import { WireReader } from './wire.ts';

interface ProtoField {
  name: string;
  number: number;
  repeated: boolean;
  type: number;
  typeName: string;
  nullable: boolean;
}
interface ProtoMessage {
  fields: ProtoField[];
  mapEntry: boolean;
  goPackage: string;
}
interface GoField {
  name: string;
  tag: string;
}

const TYPE_NAMES: Record<number, string> = {
  1: 'double',
  2: 'float',
  3: 'int64',
  4: 'uint64',
  5: 'int32',
  6: 'fixed64',
  7: 'fixed32',
  8: 'bool',
  9: 'string',
  12: 'bytes',
  13: 'uint32',
  14: 'int32',
  15: 'sfixed32',
  16: 'sfixed64',
  17: 'sint32',
  18: 'sint64',
};
const TYPE_MESSAGE = 11;
const GOGO_NULLABLE = 65001;

// ---- part 1: FileDescriptorProtos ----

function readDescriptorSet(bin: Buffer): Map<string, ProtoMessage> {
  const messages = new Map<string, ProtoMessage>();
  const magic = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff]);
  for (let at = bin.indexOf(magic); at >= 0; at = bin.indexOf(magic, at + 1)) {
    let raw: Buffer;
    try {
      raw = inflateRawSync(bin.subarray(at + 10, at + 10 + 4_000_000));
    } catch {
      continue;
    }
    if (raw[0] !== 0x0a) continue;
    const file = new WireReader(raw);
    let pkg = '';
    let goPackage = '';
    const bodies: Buffer[] = [];
    try {
      while (!file.done) {
        const t = file.tag();
        if (t.field === 2 && t.wire === 2) pkg = file.bytes().toString();
        else if (t.field === 4 && t.wire === 2) bodies.push(file.bytes());
        else if (t.field === 8 && t.wire === 2) goPackage = readGoPackage(file.bytes());
        else file.skip(t.wire, t.field);
      }
    } catch {
      continue;
    }
    if (!pkg.startsWith('k8s.io.')) continue;
    for (const body of bodies) readMessage(body, `.${pkg}`, goPackage, messages);
  }
  return messages;
}

function readGoPackage(options: Buffer): string {
  const r = new WireReader(options);
  while (!r.done) {
    const t = r.tag();
    if (t.field === 11 && t.wire === 2) return r.bytes().toString();
    r.skip(t.wire, t.field);
  }
  return '';
}

function readMessage(body: Buffer, scope: string, goPackage: string, out: Map<string, ProtoMessage>): void {
  const r = new WireReader(body);
  let name = '';
  const fields: ProtoField[] = [];
  const nested: Buffer[] = [];
  let mapEntry = false;
  while (!r.done) {
    const t = r.tag();
    if (t.field === 1 && t.wire === 2) name = r.bytes().toString();
    else if (t.field === 2 && t.wire === 2) fields.push(readField(r.bytes()));
    else if (t.field === 3 && t.wire === 2) nested.push(r.bytes());
    else if (t.field === 7 && t.wire === 2) {
      const o = r.sub();
      while (!o.done) {
        const ot = o.tag();
        if (ot.field === 7 && ot.wire === 0) mapEntry = o.varint() === 1;
        else o.skip(ot.wire, ot.field);
      }
    } else r.skip(t.wire, t.field);
  }
  const full = `${scope}.${name}`;
  out.set(full, { fields, mapEntry, goPackage });
  for (const n of nested) readMessage(n, full, goPackage, out);
}

function readField(body: Buffer): ProtoField {
  const r = new WireReader(body);
  const f: ProtoField = { name: '', number: 0, repeated: false, type: 0, typeName: '', nullable: true };
  while (!r.done) {
    const t = r.tag();
    if (t.field === 1 && t.wire === 2) f.name = r.bytes().toString();
    else if (t.field === 3 && t.wire === 0) f.number = r.varint();
    else if (t.field === 4 && t.wire === 0) f.repeated = r.varint() === 3;
    else if (t.field === 5 && t.wire === 0) f.type = r.varint();
    else if (t.field === 6 && t.wire === 2) f.typeName = r.bytes().toString();
    else if (t.field === 8 && t.wire === 2) {
      const o = r.sub();
      while (!o.done) {
        const ot = o.tag();
        if (ot.field === GOGO_NULLABLE && ot.wire === 0) f.nullable = o.varint() !== 0;
        else o.skip(ot.wire, ot.field);
      }
    } else r.skip(t.wire, t.field);
  }
  return f;
}

// ---- part 2: Go struct tags from the runtime type data in .rodata ----

function rodata(bin: Buffer): { addr: number; data: Buffer } {
  const shoff = Number(bin.readBigUInt64LE(0x28));
  const shentsize = bin.readUInt16LE(0x3a);
  const shnum = bin.readUInt16LE(0x3c);
  const strtab = shoff + bin.readUInt16LE(0x3e) * shentsize;
  const strOff = Number(bin.readBigUInt64LE(strtab + 0x18));
  for (let i = 0; i < shnum; i++) {
    const h = shoff + i * shentsize;
    const nameAt = strOff + bin.readUInt32LE(h);
    const name = bin.subarray(nameAt, bin.indexOf(0, nameAt)).toString();
    if (name === '.rodata') {
      const addr = Number(bin.readBigUInt64LE(h + 0x10));
      const off = Number(bin.readBigUInt64LE(h + 0x18));
      const size = Number(bin.readBigUInt64LE(h + 0x20));
      return { addr, data: bin.subarray(off, off + size) };
    }
  }
  throw new Error('no .rodata section: not a Go ELF binary');
}

/** Go structs by "pkgpath typename" (typename as reflect prints it, e.g. "v1.Container"). */
function readGoStructs(bin: Buffer): Map<string, GoField[]> {
  const { addr, data } = rodata(bin);
  const inRo = (a: number) => a >= addr && a < addr + data.length;
  const nameAt = (a: number): { name: string; tag: string } => {
    const r = new WireReader(data, a - addr + 1);
    const flags = data[a - addr]!;
    const n = r.varint();
    const name = data.subarray(r.pos, r.pos + n).toString();
    r.pos += n;
    let tag = '';
    if (flags & 2) {
      const tl = r.varint();
      tag = data.subarray(r.pos, r.pos + tl).toString();
    }
    return { name, tag };
  };
  const out = new Map<string, GoField[]>();
  const KIND_STRUCT = 25;
  for (let off = 56; off + 24 <= data.length; off += 8) {
    const len = Number(data.readBigUInt64LE(off + 8));
    if (len === 0 || len > 300 || len !== Number(data.readBigUInt64LE(off + 16))) continue;
    const fieldsAt = Number(data.readBigUInt64LE(off));
    const rt = off - 56;
    if (!inRo(fieldsAt) || (data[rt + 23]! & 0x1f) !== KIND_STRUCT) continue;
    const tflag = data[rt + 20]!;
    const str = data.readInt32LE(rt + 40);
    if (!(tflag & 1) || str <= 0 || str >= data.length) continue; // only named types carry a package
    const pkgOff = data.readInt32LE(rt + 80);
    if (pkgOff <= 0 || pkgOff >= data.length) continue;
    try {
      let typeName = nameAt(addr + str).name;
      if (tflag & 2) typeName = typeName.slice(1);
      const pkg = nameAt(addr + pkgOff).name;
      if (!pkg.startsWith('k8s.io/')) continue;
      const fields: GoField[] = [];
      for (let i = 0; i < len; i++) {
        const np = Number(data.readBigUInt64LE(fieldsAt - addr + 24 * i));
        if (!inRo(np)) throw new Error('not a field');
        fields.push(nameAt(np));
      }
      out.set(`${pkg} ${typeName}`, fields);
    } catch {}
  }
  return out;
}

// ---- part 3: the table ----

function protobufTag(tag: string): { number: number; name: string } | undefined {
  const m = /protobuf:"[a-z0-9]+,(\d+),[a-z]+(?:,name=([^,"]+))?/.exec(tag);
  return m ? { number: Number(m[1]), name: m[2] ?? '' } : undefined;
}

function jsonTag(tag: string): { name: string; omitempty: boolean; inline: boolean } {
  const m = /json:"([^"]*)"/.exec(tag);
  const parts = (m?.[1] ?? '').split(',');
  return { name: parts[0]!, omitempty: parts.includes('omitempty'), inline: parts.includes('inline') };
}

function generate(bin: Buffer, version: string): string {
  const protos = readDescriptorSet(bin);
  const goStructs = readGoStructs(bin);
  const lines = new Map<string, string>();
  const typeOf = (f: ProtoField): string => {
    if (f.type !== TYPE_MESSAGE) {
      const t = TYPE_NAMES[f.type];
      if (!t) throw new Error(`field ${f.name}: unsupported protobuf type ${f.type}`);
      return t;
    }
    const target = protos.get(f.typeName);
    if (!target) throw new Error(`field ${f.name}: message ${f.typeName} has no descriptor`);
    if (target.mapEntry) return `map<${typeOf(target.fields[0]!)},${typeOf(target.fields[1]!)}>`;
    visit(f.typeName);
    return protoToShort(f.typeName);
  };
  const visit = (full: string): void => {
    const short = protoToShort(full);
    if (lines.has(short) || SPECIAL_MESSAGES.has(short)) return;
    const msg = protos.get(full);
    if (!msg) throw new Error(`no descriptor for ${full}`);
    lines.set(short, ''); // reserve: recursive types
    const goPkg = msg.goPackage.split(';')[0]!;
    const goName = `${goPkg.split('/').pop()}.${full.split('.').pop()}`;
    const goFields = goStructs.get(`${goPkg} ${goName}`);
    if (!goFields) {
      const only = msg.fields[0];
      if (msg.fields.length !== 1 || !only?.repeated || only.name !== 'items')
        throw new Error(`no Go struct ${goPkg} ${goName} for ${full}`);
      lines.set(short, `#list items=1:${typeOf(only)}*`);
      return;
    }
    const byNumber = new Map(msg.fields.map((f) => [f.number, f]));
    const tokens: string[] = [];
    for (const gf of goFields) {
      const pt = protobufTag(gf.tag);
      if (!pt) continue;
      const f = byNumber.get(pt.number);
      if (!f || (pt.name && pt.name !== f.name))
        throw new Error(`${full}: Go field ${gf.name} tag ${gf.tag} does not match the descriptor`);
      byNumber.delete(pt.number);
      const js = jsonTag(gf.tag);
      if (js.name === '-') continue;
      const type = typeOf(f);
      let flags = '';
      if (f.repeated && !type.startsWith('map<')) flags += '*';
      if (f.nullable && !f.repeated && f.type !== 12) flags += '?';
      const plainStruct = f.type === TYPE_MESSAGE && !type.startsWith('map<') && !f.nullable && !f.repeated;
      if (!js.omitempty && !js.inline && !plainStruct) flags += '!'; // a Go struct value is always written
      if (js.inline) flags += '^';
      tokens.push(`${js.inline ? f.name : js.name}=${f.number}:${type}${flags}`);
    }
    if (byNumber.size) throw new Error(`${full}: descriptor fields ${[...byNumber.keys()]} have no Go field`);
    lines.set(short, tokens.join(' '));
  };
  for (const root of ROOT_MESSAGES) visit(`.${root}`);
  const body = [...lines.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, fields]) => `  '${name}': '${fields}',`)
    .join('\n');
  return `// GENERATED by generate-messages.ts from kubectl ${version}: do not edit by hand.
// One entry per protobuf message: fields in Go struct order, each \`jsonName=number:type flags\`.
// type: a scalar (string, bool, int32, int64, uint32, uint64, bytes, double, float, sint32, sint64, fixed32,
// fixed64, sfixed32, sfixed64), map<K,V>, or a message name. flags: * repeated; ? a Go pointer (presence is
// kept, so a zero value sent on the wire appears in JSON); ! no omitempty (Go writes zero values and null
// lists); ^ inlined into the parent object. '#list' marks a message that is a Go slice in JSON.
export const MESSAGES: Record<string, string> = {
${body}
};
`;
}

const path = process.argv[2];
if (!path) {
  process.stderr.write('usage: generate-messages.ts <kubectl binary>\n');
  process.exit(2);
}
const version = (
  JSON.parse(execFileSync(path, ['version', '--client', '-o', 'json']).toString()) as {
    clientVersion: { gitVersion: string };
  }
).clientVersion.gitVersion;
process.stdout.write(generate(readFileSync(path), version));
