import { linkRepository } from '@shared/links/link-repository';
import type { LinkRecord } from '@shared/links/link-record';
import { resolveHost } from '../host-resolver';
import { parseHotEntry } from './edge-answer';
import { diffHotSet, planHotSet, type HotSetLimits, DEFAULT_HOT_SET_LIMITS } from './hot-set';
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
 * One refresh of the hot set: the candidates are the links already in the store (their entries
 * name them) and the nominated `linkIds`; their link items are read again (BatchGet), ranked by
 * their live counters (`planHotSet`), and the store is moved to the plan in one serialized write.
 * A link that changed gets its new entry; one that was archived, expired, stopped being eligible,
 * went cold or whose domain was removed leaves the store.
 */
export const refreshHotSet = async (
  writer: HotSetWriter,
  linkIds: readonly string[],
  now = new Date(),
  limits: HotSetLimits = DEFAULT_HOT_SET_LIMITS,
): Promise<HotSetRefresh> => {
  const current = await writer.read();
  const ids = new Set(linkIds);
  for (const value of current.values()) {
    const entry = parseHotEntry(value);
    if (entry) ids.add(entry.i);
  }
  const links = [...(await linkRepository.findByIds([...ids])).values()];
  const served = await Promise.all(links.map(servedOnItsDomain));
  const plan = planHotSet(
    links.filter((_, i) => served[i]),
    now,
    limits,
  );
  const result = await writer.apply(diffHotSet(current, plan));
  return { ...result, candidates: ids.size, hot: plan.size };
};
