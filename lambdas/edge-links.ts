import { answerLinkPath } from '@shared/edge/link-path';
import { edgeHandler } from '@shared/http/edge-handler';

export const handler = edgeHandler((event, context) => answerLinkPath(event, context.requestId));
