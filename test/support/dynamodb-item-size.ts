/**
 * DynamoDB's item size and capacity units, as the service computes them ("Item sizes and
 * formats" and "Read/write capacity unit consumption" in the DynamoDB developer guide), from
 * items on the DynamoDB JSON wire:
 *
 * - an attribute is its name's UTF-8 bytes plus its value: `S` its UTF-8 bytes, `B` its bytes,
 *   `N` about one byte per two significant digits plus one (at most 21), `BOOL` and `NULL` one
 *   byte, a set the sum of its elements, `L` and `M` 3 bytes plus each element plus one byte per
 *   element (an `M` element counts its name too);
 * - a read is one unit per started 4 KB of the item (a strongly consistent or transactional
 *   read; an eventually consistent read costs half; a transactional read twice); an item that
 *   is not there still costs the minimum unit;
 * - a write is one unit per started 1 KB (a transactional write twice).
 */
type Wire = Record<string, unknown>;

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

const numberSize = (n: string) => {
  const digits = n.replace(/^[-+]/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.min(21, Math.ceil(Math.max(1, digits.length) / 2) + 1);
};

export const valueSize = (value: Wire): number => {
  if ('S' in value) return utf8(String(value.S));
  if ('N' in value) return numberSize(String(value.N));
  if ('B' in value) return Buffer.from(String(value.B), 'base64').length;
  if ('BOOL' in value || 'NULL' in value) return 1;
  if ('SS' in value) return (value.SS as string[]).reduce((sum, s) => sum + utf8(s), 0);
  if ('NS' in value) return (value.NS as string[]).reduce((sum, n) => sum + numberSize(n), 0);
  if ('BS' in value) return (value.BS as string[]).reduce((sum, b) => sum + Buffer.from(b, 'base64').length, 0);
  if ('L' in value) return 3 + (value.L as Wire[]).reduce((sum, v) => sum + valueSize(v) + 1, 0);
  if ('M' in value)
    return (
      3 + Object.entries(value.M as Record<string, Wire>).reduce((sum, [k, v]) => sum + utf8(k) + valueSize(v) + 1, 0)
    );
  return 0;
};

/** The size of an item (attribute names plus values), in bytes. */
export const itemSize = (item: Record<string, Wire> | undefined): number =>
  item ? Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueSize(value), 0) : 0;

/** Read units of `bytes` read in one request (an absent item: the minimum unit). */
export const readUnits = (bytes: number, read: 'eventual' | 'strong' | 'transactional'): number => {
  const units = Math.max(1, Math.ceil(bytes / 4096));
  return read === 'eventual' ? units / 2 : read === 'transactional' ? units * 2 : units;
};

/** Write units of one item of `bytes` (transactional: twice). */
export const writeUnits = (bytes: number, transactional = false): number =>
  Math.max(1, Math.ceil(bytes / 1024)) * (transactional ? 2 : 1);
