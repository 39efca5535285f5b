/**
 * The queries a lazy page needs first, shared by the page and its route: the route (in the first
 * chunk) starts them while the page's chunk loads, so the data and the code arrive together
 * instead of one after the other.
 */
import { queryOptions } from '@tanstack/react-query';
import type { AnalyticsParams } from './analytics-params';
import { api } from './api';

export type LinkKind = 'link' | 'deep-link';

export const resourceOf = (kind: LinkKind) => (kind === 'link' ? api.links : api.deepLinks);

/** The first element of the query keys of a kind's lists (what a change invalidates). */
export const listKeyOf = (kind: LinkKind) => (kind === 'link' ? 'links' : 'deep-links');

export const linkQuery = (kind: LinkKind, id: string) =>
  queryOptions({ queryKey: [kind, id], queryFn: () => resourceOf(kind).get(id) });

export const analyticsQuery = (id: string, params: Pick<AnalyticsParams, 'range' | 'traffic'>) =>
  queryOptions({
    queryKey: ['analytics', id, params.range, params.traffic],
    queryFn: () => api.analytics.link(id, { range: params.range, traffic: params.traffic }),
  });
