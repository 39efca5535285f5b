import type { Domain, Link } from '@linkservice/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { api } from '../api';
import { createBody, deepLinkCreateBody, emptyForm, formOf, patchBody, type LinkFormValues } from '../link-form-model';
import { listKeyOf, resourceOf, type LinkKind } from '../queries';
import { CopyButton } from './CopyButton';
import { Dialog } from './Dialog';
import { ErrorNotice } from './ErrorNotice';
import { LinkFormFields } from './LinkForm';

/** The workspace's active domains (the primary first), for the Domain select. */
export const useDomains = () =>
  useQuery({
    queryKey: ['domains'],
    queryFn: async () => {
      const domains: Domain[] = [];
      for await (const domain of api.domains.list({})) if (!domain.archived) domains.push(domain);
      return domains.sort((a, b) => Number(b.primary) - Number(a.primary) || a.domain.localeCompare(b.domain));
    },
    staleTime: 60_000,
  });

const useFormState = (initial: LinkFormValues) => {
  const [values, setValues] = useState(initial);
  const set = <K extends keyof LinkFormValues>(name: K, value: LinkFormValues[K]) => {
    setValues((old) => ({ ...old, [name]: value }));
  };
  return { values, set, setValues };
};

/**
 * The "New link" (or "New deep link") dialog: the form, then the new short link with its copy
 * button. A deep link names its app (one of `apps`, the apps of the deep links listed, preselected
 * when there is one) instead of a domain.
 */
export const CreateLinkDialog = ({
  kind = 'link',
  apps = [],
  onClose,
}: {
  kind?: LinkKind;
  apps?: readonly string[];
  onClose: () => void;
}) => {
  const queryClient = useQueryClient();
  const domains = useDomains();
  const { values, set } = useFormState({ ...emptyForm(''), appId: apps.length === 1 ? (apps[0] ?? '') : '' });
  const domain = values.domain || domains.data?.[0]?.domain || '';
  const create = useMutation({
    mutationFn: (form: LinkFormValues) =>
      kind === 'link' ? api.links.create(createBody(form)) : api.deepLinks.create(deepLinkCreateBody(form)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [listKeyOf(kind)] }),
  });
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    create.mutate({ ...values, domain });
  };
  const noun = kind === 'link' ? 'link' : 'deep link';
  const ready = kind === 'link' ? domain !== '' : values.appId.trim() !== '';
  return (
    <Dialog title={`New ${noun}`} onClose={onClose}>
      {create.data ? (
        <div className="created">
          <p role="status">The {kind === 'link' ? 'short link' : 'deep link'} is ready.</p>
          <p className="short-link">
            <a href={create.data.shortLink} target="_blank" rel="noreferrer">
              {create.data.shortLink}
            </a>
          </p>
          <div className="actions">
            <CopyButton text={create.data.shortLink} label="Copy short link" />
            <button type="button" onClick={onClose}>
              Done
            </button>
          </div>
        </div>
      ) : (
        <form onSubmit={submit}>
          {domains.error && kind === 'link' ? (
            <ErrorNotice title="The domains could not be loaded" error={domains.error} />
          ) : null}
          <LinkFormFields
            kind={kind}
            apps={apps}
            values={{ ...values, domain }}
            set={set}
            domains={domains.data ?? []}
            editing={false}
            passwordProtected={false}
          />
          {create.error ? <ErrorNotice title={`The ${noun} was not created`} error={create.error} /> : null}
          <div className="actions">
            <button type="button" className="secondary" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" disabled={create.isPending || !ready}>
              Create {noun}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
};

/**
 * The "Edit link" (or "Edit deep link") dialog: every field of the link, saved as one patch through
 * the link's own route (`PATCH /v1/links/{id}` or `/v1/deep-links/{id}`).
 */
export const EditLinkDialog = ({
  link,
  kind = 'link',
  onClose,
}: {
  link: Link;
  kind?: LinkKind;
  onClose: () => void;
}) => {
  const queryClient = useQueryClient();
  const domains = useDomains();
  const { values, set } = useFormState(formOf(link));
  const save = useMutation({
    mutationFn: (form: LinkFormValues) => resourceOf(kind).update(link.id, patchBody(form, link)),
    onSuccess: async (saved) => {
      queryClient.setQueryData([kind, saved.id], saved);
      await queryClient.invalidateQueries({ queryKey: [listKeyOf(kind)] });
      onClose();
    },
  });
  return (
    <Dialog title={kind === 'link' ? 'Edit link' : 'Edit deep link'} onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate(values);
        }}
      >
        <p className="help">
          Editing <code>{link.shortLink}</code>
        </p>
        <LinkFormFields
          kind={kind}
          values={values}
          set={set}
          domains={domains.data ?? []}
          editing
          passwordProtected={link.passwordProtected}
        />
        {save.error ? (
          <ErrorNotice
            title={kind === 'link' ? 'The link was not saved' : 'The deep link was not saved'}
            error={save.error}
          />
        ) : null}
        <div className="actions">
          <button type="button" className="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" disabled={save.isPending}>
            Save changes
          </button>
        </div>
      </form>
    </Dialog>
  );
};
