/**
 * DynamoDB's size of an item, as the service computes it against its 400 KB item limit ("Item
 * sizes and formats" in the DynamoDB developer guide,
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html),
 * from the item in DynamoDB JSON (the wire format, `marshall`ed):
 *
 * - an attribute is its name's UTF-8 bytes plus its value: `S` its UTF-8 bytes, `B` its bytes,
 *   `N` about one byte per two significant digits plus one (at most 21), `BOOL` and `NULL` one
 *   byte, a set the sum of its elements, `L` and `M` 3 bytes plus each element plus one byte per
 *   element (an `M` element counts its name too).
 */
type Wire = Record<string, unknown>;

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/** Binary values: base64 on the JSON wire, raw bytes once marshalled in memory. */
const binarySize = (b: unknown) => (b instanceof Uint8Array ? b.length : Buffer.from(String(b), 'base64').length);

const numberSize = (n: string) => {
  const digits = n.replace(/^[-+]/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.min(21, Math.ceil(Math.max(1, digits.length) / 2) + 1);
};

/** The size of one attribute value (an AttributeValue: `{ S: ... }`, `{ M: ... }`, ...). */
export const valueSize = (attribute: object): number => {
  const value = attribute as Wire;
  if ('S' in value) return utf8(String(value.S));
  if ('N' in value) return numberSize(String(value.N));
  if ('B' in value) return binarySize(value.B);
  if ('BOOL' in value || 'NULL' in value) return 1;
  if ('SS' in value) return [...(value.SS as Iterable<string>)].reduce((sum, s) => sum + utf8(s), 0);
  if ('NS' in value) return [...(value.NS as Iterable<string>)].reduce((sum, n) => sum + numberSize(n), 0);
  if ('BS' in value) return [...(value.BS as Iterable<unknown>)].reduce<number>((sum, b) => sum + binarySize(b), 0);
  if ('L' in value) return 3 + (value.L as Wire[]).reduce((sum, v) => sum + valueSize(v) + 1, 0);
  if ('M' in value)
    return (
      3 + Object.entries(value.M as Record<string, Wire>).reduce((sum, [k, v]) => sum + utf8(k) + valueSize(v) + 1, 0)
    );
  return 0;
};

/** The size of an item (attribute names plus values), in bytes. */
export const itemSize = (item: Record<string, object> | undefined): number =>
  item ? Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueSize(value), 0) : 0;
