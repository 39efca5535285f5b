import { answerWellKnown } from '@shared/edge/well-known';
import { edgeHandler } from '@shared/http/edge-handler';

export const handler = edgeHandler((event) => answerWellKnown(event));
