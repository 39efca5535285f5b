import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { liveHumans } from '@shared/clicks/link-counters';
import { crossedHotThreshold } from '@shared/edge/hot-links/hot-candidates';
import { HOT_MIN_RECENT_CLICKS, planHotSet, type PlannedEntry } from '@shared/edge/hot-links/hot-set';
import { changedLinkIds, hotLinkInvalidation, replanChanges } from '@shared/edge/hot-links/invalidate-hot-links';
import type { LinkRecord } from '@shared/links/link-record';
import { plainLinkRecord } from '@test/support/redirect-record';

const NOW = new Date('2026-03-01T12:15:00Z');

/** A link item as the table's stream carries it: keys, the record and its `linkId`. */
const linkItem = (id: string, over: Record<string, unknown> = {}): Record<string, unknown> => ({
  pk: `LINK#${id}`,
  sk: 'LINK',
  ...plainLinkRecord(id),
  linkId: id,
  ...over,
});

const record = (
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown> | undefined,
): DynamoDBRecord => {
  const item = (after ?? before)!;
  return {
    eventName,
    eventSource: 'aws:dynamodb',
    dynamodb: {
      Keys: marshall({ pk: item.pk, sk: item.sk }) as never,
      ...(before ? { OldImage: marshall(before, { removeUndefinedValues: true }) as never } : {}),
      ...(after ? { NewImage: marshall(after, { removeUndefinedValues: true }) as never } : {}),
    },
  };
};

/** A store holding the entries a plan of these link items gives (as the refresh writes them). */
const storeOf = (items: Record<string, unknown>[]) =>
  new Map([...planHotSet(items as unknown as LinkRecord[], NOW).values()].map((e) => [e.key, e.value]));

const HOT = { [liveHumans('2026-03-01T12')]: 5_000 };

describe('stream records -> the hot links to re-plan (pure)', () => {
  it('finds LINK items removed or changed in their version, archive state, key or domain', () => {
    const a = linkItem('a');
    const records = [
      record('MODIFY', a, { ...a, url: 'https://example.com/new', updatedAt: '2026-03-01T12:00:00.000Z' }),
      record('MODIFY', linkItem('b'), { ...linkItem('b'), archived: true }),
      record('REMOVE', linkItem('c'), undefined),
      record('MODIFY', linkItem('d'), { ...linkItem('d'), key: 'other' }),
      // Counted clicks only: the version is the same, so the store is not read for it.
      record('MODIFY', linkItem('e'), { ...linkItem('e'), clicks: 9, ...HOT, lastClicked: '2026-03-01T12:14:00Z' }),
      // A new link is not in the store.
      record('INSERT', undefined, linkItem('f')),
      // Not a link item.
      record('MODIFY', { pk: 'WS#ws_1', sk: 'DOMAIN#d' }, { pk: 'WS#ws_1', sk: 'DOMAIN#d', updatedAt: 'x' }),
      record('MODIFY', { pk: 'LINK#g', sk: 'ENTRY#all' }, { pk: 'LINK#g', sk: 'ENTRY#all', updatedAt: 'x' }),
      // The same link twice in one batch: once.
      record('MODIFY', a, { ...a, updatedAt: '2026-03-01T12:00:01.000Z' }),
    ];
    expect(changedLinkIds(records)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('re-plans a link whose images are missing (it cannot be judged without them)', () => {
    const bare: DynamoDBRecord = {
      eventName: 'MODIFY',
      dynamodb: { Keys: marshall({ pk: 'LINK#x', sk: 'LINK' }) as never },
    };
    expect(changedLinkIds([bare])).toEqual(['x']);
  });

  it('of the changed links, keeps only those with an entry in the store, with their keys', () => {
    const store = storeOf([linkItem('a', HOT), linkItem('b', HOT), linkItem('z', HOT)]);
    expect(store.size).toBe(3);
    expect(hotLinkInvalidation(['a', 'c', 'z'], store)).toEqual({
      linkIds: ['a', 'z'],
      keys: ['go.example.com/a', 'go.example.com/z'],
    });
    expect(hotLinkInvalidation(['c'], store)).toEqual({ linkIds: [], keys: [] });
  });

  it("changes only the re-planned links' entries: new value, deleted when not planned, moved key", () => {
    const store = storeOf([linkItem('a', HOT), linkItem('b', HOT), linkItem('d', HOT), linkItem('z', HOT)]);
    const invalidation = hotLinkInvalidation(['a', 'b', 'd'], store);
    const plan: Map<string, PlannedEntry> = planHotSet(
      [
        linkItem('a', { ...HOT, url: 'https://example.com/changed', updatedAt: '2026-03-01T12:10:00.000Z' }),
        linkItem('b', { ...HOT, archived: true }),
        linkItem('d', { ...HOT, key: 'moved' }),
        // A link the plan has but the batch did not re-plan is not written by it.
        linkItem('y', HOT),
      ] as unknown as LinkRecord[],
      NOW,
    );
    const changes = replanChanges(store, invalidation, plan);
    expect(changes.deletes.sort()).toEqual(['go.example.com/b', 'go.example.com/d']);
    expect(changes.puts.map((p) => p.key).sort()).toEqual(['go.example.com/a', 'go.example.com/moved']);
    expect(JSON.parse(changes.puts.find((p) => p.key === 'go.example.com/a')!.value)).toMatchObject({
      l: 'https://example.com/changed',
      v: '2026-03-01T12:10:00.000Z',
    });
    // An unchanged re-planned link writes nothing.
    const same = replanChanges(store, hotLinkInvalidation(['z'], store), storeOfPlan(['z']));
    expect(same).toEqual({ puts: [], deletes: [] });
  });
});

const storeOfPlan = (ids: string[]) => planHotSet(ids.map((id) => linkItem(id, HOT)) as unknown as LinkRecord[], NOW);

describe('a counter update crossing the hot threshold (pure)', () => {
  const hour = '2026-03-01T12';
  const previousHour = '2026-03-01T11';
  const added = (humans: number) => new Map([[hour, { humans }]]);

  it('is crossed when the update carries the last hour over the threshold, not when it was already over', () => {
    const min = HOT_MIN_RECENT_CLICKS;
    expect(crossedHotThreshold({ [liveHumans(hour)]: min }, added(1), NOW)).toBe(true);
    expect(crossedHotThreshold({ [liveHumans(hour)]: min + 1 }, added(1), NOW)).toBe(false);
    expect(crossedHotThreshold({ [liveHumans(hour)]: min - 1 }, added(5), NOW)).toBe(false);
    // A link's first clicks, many at once.
    expect(crossedHotThreshold({ [liveHumans(hour)]: 20_000 }, added(20_000), NOW)).toBe(true);
  });

  it('weighs the previous hour by the part of it still in the window (12:15: three quarters)', () => {
    // 60 now + 0.75 * 60 = 105 >= 100; before the update: 50 + 45 = 95.
    const item = { [liveHumans(hour)]: 60, [liveHumans(previousHour)]: 60 };
    expect(crossedHotThreshold(item, added(10), NOW)).toBe(true);
    // The same counts an hour later are mostly outside the window.
    expect(crossedHotThreshold(item, added(10), new Date('2026-03-01T13:45:00Z'))).toBe(false);
  });

  it('ignores bot clicks (only the hourly human counters count)', () => {
    expect(crossedHotThreshold({ 'lb#2026-03-01T12': 5_000, [liveHumans(hour)]: 3 }, added(3), NOW)).toBe(false);
  });
});
