import { handleLinkRequest } from '@shared/edge/handle-click';
import { edgeHandler } from '@shared/http/edge-handler';

export const handler = edgeHandler((event, context) => handleLinkRequest(event, context.requestId));
