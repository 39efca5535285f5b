/**
 * DynamoDB's item size (shared/db/item-size.ts) and capacity units, as the service computes them
 * ("Read/write capacity unit consumption" in the DynamoDB developer guide), from items on the
 * DynamoDB JSON wire:
 *
 * - a read is one unit per started 4 KB of the item (a strongly consistent or transactional
 *   read; an eventually consistent read costs half; a transactional read twice); an item that
 *   is not there still costs the minimum unit;
 * - a write is one unit per started 1 KB (a transactional write twice).
 */
export { itemSize, valueSize } from '@shared/db/item-size';

/** Read units of `bytes` read in one request (an absent item: the minimum unit). */
export const readUnits = (bytes: number, read: 'eventual' | 'strong' | 'transactional'): number => {
  const units = Math.max(1, Math.ceil(bytes / 4096));
  return read === 'eventual' ? units / 2 : read === 'transactional' ? units * 2 : units;
};

/** Write units of one item of `bytes` (transactional: twice). */
export const writeUnits = (bytes: number, transactional = false): number =>
  Math.max(1, Math.ceil(bytes / 1024)) * (transactional ? 2 : 1);
