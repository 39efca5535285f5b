import { linkRepository } from '@shared/links/link-repository';
import type { LinkRecord } from '@shared/links/link-record';
import { retry } from '@shared/util/retry';
import { resolveHost } from '../host-resolver';
import { parseHotEntry } from './edge-answer';
import { readHotSetItem, recordHotSetRefresh } from './hot-candidates';
import { diffHotSet, planHotSet, type HotSetLimits, DEFAULT_HOT_SET_LIMITS, type PlannedEntry } from './hot-set';
import type { HotSetWriter, HotSetWriteResult } from './kvs-writer';

export interface HotSetRefresh extends HotSetWriteResult {
  candidates: number;
  hot: number;
}

/** A link answered on its domain: the host resolves to it and is not retired (a removed domain answers not-found). */
const servedOnItsDomain = async (link: LinkRecord): Promise<boolean> => {
  const host = await resolveHost(link.domain);
  return host !== null && !host.alternate && !host.retired && host.domainId === link.domainId;
};

/**
 * The plan for the given links: their items read again (BatchGet: the latest state, whatever
 * order the changes came in), those served on their domain, ranked by their live counters.
 */
export const planLinks = async (
  linkIds: Iterable<string>,
  now: Date,
  limits: HotSetLimits = DEFAULT_HOT_SET_LIMITS,
): Promise<Map<string, PlannedEntry>> => {
  const links = [...(await linkRepository.findByIds([...new Set(linkIds)])).values()];
  const served = await Promise.all(links.map(servedOnItsDomain));
  return planHotSet(
    links.filter((_, i) => served[i]),
    now,
    limits,
  );
};

/**
 * Runs one read-plan-write of the store again, once, when its write lost to another writer
 * (`409 ConflictException`: the ETag it read was stale). The second attempt reads the store and
 * its ETag afresh. The deployed writer runs one invocation at a time (reserved concurrency 1), so
 * a conflict means an operator's invoke or a console edit.
 */
export const retryOnStaleStore = <T>(run: () => Promise<T>): Promise<T> =>
  retry(run, {
    attempts: 2,
    retryOn: (error) => error.name === 'ConflictException',
    pause: () => Promise.resolve(),
  });

/**
 * One refresh of the hot set: the candidates are the links already in the store (their entries
 * name them), the links the counter consumer nominated as newly hot (the hot-set item,
 * hot-candidates.ts) and the nominated `linkIds`; their link items are read again (BatchGet),
 * ranked by their live counters (`planHotSet`), and the store is moved to the plan in one
 * serialized write. A link that changed gets its new entry; one that was archived, expired,
 * stopped being eligible, went cold or whose domain was removed leaves the store. The refresh
 * then records its time and figures and removes the candidates it read.
 */
export const refreshHotSet = async (
  writer: HotSetWriter,
  linkIds: readonly string[],
  now = new Date(),
  limits: HotSetLimits = DEFAULT_HOT_SET_LIMITS,
): Promise<HotSetRefresh> => {
  const { candidates } = await readHotSetItem();
  const result = await retryOnStaleStore(async () => {
    const current = await writer.read();
    const ids = new Set([...linkIds, ...candidates]);
    for (const value of current.values()) {
      const entry = parseHotEntry(value);
      if (entry) ids.add(entry.i);
    }
    const plan = await planLinks(ids, now, limits);
    const written = await writer.apply(diffHotSet(current, plan));
    return { ...written, candidates: ids.size, hot: plan.size };
  });
  await recordHotSetRefresh(
    {
      at: now.toISOString(),
      hot: result.hot,
      candidates: result.candidates,
      puts: result.puts,
      deletes: result.deletes,
      itemCount: result.itemCount ?? null,
      totalSizeInBytes: result.totalSizeInBytes ?? null,
    },
    candidates,
    now,
  );
  return result;
};
