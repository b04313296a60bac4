// Go's notion of "unset" for defaulting: strings default when empty, pointers when absent or
// null, plain integers when zero; non-pointer struct fields always exist.
export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
export const unset = (v: unknown) => v === undefined || v === null;
export const emptyStr = (v: unknown) => unset(v) || v === '';

/** The child object at `key`, created when missing (Go's non-pointer struct fields always exist). */
export function child(o: Obj, key: string): Obj {
  if (!isObj(o[key])) o[key] = {};
  return o[key] as Obj;
}

export const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

export function defStr(o: Obj, key: string, value: string): void {
  if (emptyStr(o[key])) o[key] = value;
}

export function defPtr(o: Obj, key: string, value: unknown): void {
  if (unset(o[key])) o[key] = value;
}

export function defInt(o: Obj, key: string, value: number): void {
  if (unset(o[key]) || o[key] === 0) o[key] = value;
}
