import { AppError } from '@shared/errors/app-error';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler({ route: 'not-found' }, () =>
  Promise.reject(new AppError('not_found', 'No such route')),
);
