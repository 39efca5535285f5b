import type { Domain, Link } from '@linkservice/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { api } from '../api';
import { createBody, emptyForm, formOf, patchBody, type LinkFormValues } from '../link-form-model';
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

/** The "New link" dialog: the form, then the new short link with its copy button. */
export const CreateLinkDialog = ({ onClose }: { onClose: () => void }) => {
  const queryClient = useQueryClient();
  const domains = useDomains();
  const { values, set } = useFormState(emptyForm(''));
  const domain = values.domain || domains.data?.[0]?.domain || '';
  const create = useMutation({
    mutationFn: (form: LinkFormValues) => api.links.create(createBody(form)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['links'] }),
  });
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    create.mutate({ ...values, domain });
  };
  return (
    <Dialog title="New link" onClose={onClose}>
      {create.data ? (
        <div className="created">
          <p role="status">The short link is ready.</p>
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
          {domains.error ? <ErrorNotice title="The domains could not be loaded" error={domains.error} /> : null}
          <LinkFormFields
            values={{ ...values, domain }}
            set={set}
            domains={domains.data ?? []}
            editing={false}
            passwordProtected={false}
          />
          {create.error ? <ErrorNotice title="The link was not created" error={create.error} /> : null}
          <div className="actions">
            <button type="button" className="secondary" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" disabled={create.isPending || domain === ''}>
              Create link
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
};

/** The "Edit link" dialog: every field of the link, saved as one patch. */
export const EditLinkDialog = ({ link, onClose }: { link: Link; onClose: () => void }) => {
  const queryClient = useQueryClient();
  const domains = useDomains();
  const { values, set } = useFormState(formOf(link));
  const save = useMutation({
    mutationFn: (form: LinkFormValues) => api.links.update(link.id, patchBody(form, link)),
    onSuccess: async (saved) => {
      queryClient.setQueryData(['link', saved.id], saved);
      await queryClient.invalidateQueries({ queryKey: ['links'] });
      onClose();
    },
  });
  return (
    <Dialog title="Edit link" onClose={onClose}>
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
          values={values}
          set={set}
          domains={domains.data ?? []}
          editing
          passwordProtected={link.passwordProtected}
        />
        {save.error ? <ErrorNotice title="The link was not saved" error={save.error} /> : null}
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
