// Deterministic config.yaml text: map keys sorted at every level, list order kept, no timestamps, so the
// same input gives byte-identical YAML and therefore the same hash and ConfigMap name.
//
// A small emitter for JSON-shaped data instead of the yaml library's stringify, which is ~30× slower and
// dominated the generator's latency. Anything that is not plainly safe as a bare YAML scalar is written as
// a JSON string, which is valid YAML (a double-quoted scalar); the tests check that parsing the text
// gives back the input.
import { createHash } from 'node:crypto';

// bare scalars that YAML reads back as the same string: no indicators, no leading/trailing space, and not
// something YAML 1.1/1.2 would read as a number, boolean, null or timestamp
const PLAIN = /^[A-Za-z_/][A-Za-z0-9_./@+-]*$/;
const SPECIAL = /^(?:true|false|yes|no|on|off|y|n|null|~|[-+]?(?:\.inf|\.nan)|\d.*)$/i;

function scalar(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : JSON.stringify(String(v));
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  const s = String(v);
  return PLAIN.test(s) && !SPECIAL.test(s) ? s : JSON.stringify(s);
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function emit(v: unknown, indent: string, out: string[]): void {
  if (Array.isArray(v)) {
    for (const item of v) {
      if (isMap(item) && Object.keys(item).length > 0) {
        const lines: string[] = [];
        emit(item, `${indent}  `, lines);
        out.push(`${indent}- ${lines[0]!.slice(indent.length + 2)}`, ...lines.slice(1));
      } else if (Array.isArray(item) && item.length > 0) {
        out.push(`${indent}-`);
        emit(item, `${indent}  `, out);
      } else out.push(`${indent}- ${inline(item)}`);
    }
    return;
  }
  for (const k of Object.keys(v as Record<string, unknown>).sort()) {
    const child = (v as Record<string, unknown>)[k];
    if (child === undefined) continue;
    const key = scalar(k);
    if (isMap(child) && Object.keys(child).length > 0) {
      out.push(`${indent}${key}:`);
      emit(child, `${indent}  `, out);
    } else if (Array.isArray(child) && child.length > 0) {
      out.push(`${indent}${key}:`);
      emit(child, indent, out);
    } else out.push(`${indent}${key}: ${inline(child)}`);
  }
}

/** empty maps and lists are written inline; everything else is a scalar */
function inline(v: unknown): string {
  if (Array.isArray(v)) return '[]';
  if (isMap(v)) return '{}';
  return scalar(v);
}

export function deterministicYaml(config: Record<string, unknown>): string {
  const out: string[] = [];
  emit(config, '', out);
  return `${out.join('\n')}\n`;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
