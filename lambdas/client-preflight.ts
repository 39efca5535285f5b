import type { ApiEvent, ApiResult } from '@shared/http/api-types';
import { answerClientPreflight } from '@shared/http/client-preflight';

export const handler = (event: ApiEvent): Promise<ApiResult> => answerClientPreflight(event);
