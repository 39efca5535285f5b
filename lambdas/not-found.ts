import { notFoundRoute } from '@shared/routes/meta-routes';
import { AppError } from '@shared/errors/app-error';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(notFoundRoute, () => Promise.reject(new AppError('not_found', 'No such route')));
