import { handleOtherPath } from '@shared/edge/handle-click';
import { edgeHandler } from '@shared/http/edge-handler';

export const handler = edgeHandler((event, context) => handleOtherPath(event, context.requestId));
