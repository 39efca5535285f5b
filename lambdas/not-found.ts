import { AppError } from '@shared/errors/app-error';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler({ route: 'not-found' }, async () => {
  throw new AppError('not_found', 'No such route');
});
