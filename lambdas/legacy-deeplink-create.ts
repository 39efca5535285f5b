import { legacyDeeplinkCreateRoute } from '@shared/routes/legacy-routes';
import { requestOrigin } from '@shared/audit/request-origin';
import { legacyHandler } from '@shared/http/legacy-handler';
import { createLegacyDeepLink } from '@shared/legacy/legacy-links';
import { required } from '@shared/util/required';

export const handler = legacyHandler(legacyDeeplinkCreateRoute, (input) =>
  createLegacyDeepLink(
    input.auth.workspaceId,
    required(input.auth.appId, 'the app id of the legacy app key'),
    input.form,
    requestOrigin(input),
  ),
);
