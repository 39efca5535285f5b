/**
 * The single table, defined once. The CDK stack (lib/table.ts) and the local stack
 * (shared/local/create-table.ts) both build it from this object.
 *
 * Item types (key builders in keys.ts):
 *   WORKSPACE, APIKEY (by key hash), DOMAIN, HOST (domain name -> workspace), APP,
 *   LINK (pk LINK#id: spreads click counter writes over partitions), SLUG (reservation and
 *   denormalized redirect record, written in the same transaction as the link), TAG,
 *   IDEMPOTENCY, SECRET, plus what later features add.
 *
 * Global secondary indexes are KEYS_ONLY: a list Queries an index for ids, then reads the
 * page's items from the base table (BatchGet). Updating an attribute that is not a key of an
 * index (click counters, titles, ...) therefore never writes to an index.
 */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'ttl',
  globalSecondaryIndexes: [
    { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    { indexName: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
  ],
} as const;

export type IndexName = (typeof tableDefinition.globalSecondaryIndexes)[number]['indexName'];
