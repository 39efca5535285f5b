import { describe, expect, it } from 'vitest';
import { tallyClickMetrics } from '@shared/clicks/click-metrics';

const line = (fields: Record<string, unknown>) => ({ data: JSON.stringify({ eventType: 'click', ...fields }) });

describe('click metrics from a batch of the event stream', () => {
  it('counts clicks by source and traffic, and the edge outcomes; lake-only replays and other events are left out', () => {
    const tally = tallyClickMetrics([
      line({ trafficType: 'human', responseKind: 'redirect' }),
      line({ trafficType: 'human', responseKind: 'redirect' }),
      line({ trafficType: 'bot', responseKind: 'preview' }),
      line({ trafficType: 'human', responseKind: 'launch_view' }),
      line({ trafficType: 'human', responseKind: 'api' }),
      line({ trafficType: 'bot', responseKind: 'api' }),
      { ...line({ trafficType: 'human', responseKind: 'redirect' }), lakeOnly: true },
      { data: JSON.stringify({ eventType: 'first_open', trafficType: 'human', responseKind: 'api' }) },
      { data: 'not json' },
    ]);
    expect(tally.clicks).toEqual({ edge: { human: 3, bot: 1 }, 'client API': { human: 1, bot: 1 } });
    expect(Object.fromEntries(tally.outcomes)).toEqual({ redirect: 2, preview: 1, launch_view: 1 });
  });
});
