import { handlePasswordSubmit } from '@shared/edge/password-unlock';
import { edgeHandler } from '@shared/http/edge-handler';

export const handler = edgeHandler((event, context) => handlePasswordSubmit(event, context.requestId));
