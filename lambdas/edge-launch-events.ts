import { recordLaunchViewEvent } from '@shared/edge/launch-events';
import { edgeHandler } from '@shared/http/edge-handler';

export const handler = edgeHandler((event) => recordLaunchViewEvent(event));
