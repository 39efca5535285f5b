import type { Domain } from '@linkservice/sdk';
import { useId, type ReactNode } from 'react';
import { TRACKING_FIELDS, type LinkFormValues } from '../link-form-model';
import type { LinkKind } from '../queries';

type Set = <K extends keyof LinkFormValues>(name: K, value: LinkFormValues[K]) => void;

/** A labelled text field; `hint` is read with it (aria-describedby). */
const Field = ({
  label,
  value,
  onChange,
  type = 'text',
  hint,
  required = false,
  multiline = false,
  autoFocus = false,
  list,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  type?: 'text' | 'url' | 'password' | 'datetime-local';
  hint?: string;
  required?: boolean;
  multiline?: boolean;
  autoFocus?: boolean;
  /** The id of a <datalist> of suggestions. */
  list?: string;
}) => {
  const id = useId();
  const hintId = `${id}-hint`;
  const common = {
    id,
    value,
    required,
    'data-autofocus': autoFocus ? true : undefined,
    'aria-describedby': hint ? hintId : undefined,
  };
  return (
    <div className="field">
      <label htmlFor={id}>
        {label}
        {required ? null : (
          <span className="optional" aria-hidden="true">
            {' '}
            (optional)
          </span>
        )}
      </label>
      {multiline ? (
        <textarea
          {...common}
          rows={3}
          onChange={(event) => {
            onChange(event.target.value);
          }}
        />
      ) : (
        <input
          {...common}
          type={type}
          list={list}
          autoComplete={type === 'password' ? 'new-password' : 'off'}
          onChange={(event) => {
            onChange(event.target.value);
          }}
        />
      )}
      {hint ? (
        <p id={hintId} className="help">
          {hint}
        </p>
      ) : null}
    </div>
  );
};

const Section = ({ title, children }: { title: string; children: ReactNode }) => (
  <details className="section">
    <summary>{title}</summary>
    <fieldset>
      <legend className="visually-hidden">{title}</legend>
      {children}
    </fieldset>
  </details>
);

/**
 * Every field of a link: destination, domain, key, title, tags, and the optional groups. A deep
 * link names its app instead of a domain when it is created (it lives on the app's domain, which
 * an edit cannot change), and may leave its destination to the app's default URL.
 */
export const LinkFormFields = ({
  kind = 'link',
  apps = [],
  values,
  set,
  domains,
  editing,
  passwordProtected,
}: {
  kind?: LinkKind;
  /** A deep link's apps to suggest (the apps of the deep links listed). */
  apps?: readonly string[];
  values: LinkFormValues;
  set: Set;
  domains: Domain[];
  editing: boolean;
  passwordProtected: boolean;
}) => {
  const domainId = useId();
  const cardId = useId();
  const removeId = useId();
  const appsId = useId();
  const known = domains.some((d) => d.domain === values.domain);
  return (
    <>
      <Field
        label="Destination URL"
        type="url"
        required={kind === 'link' || editing}
        autoFocus
        hint={kind === 'deep-link' && !editing ? "Left empty, the app's default URL." : undefined}
        value={values.url}
        onChange={(v) => {
          set('url', v);
        }}
      />
      {kind === 'link' ? (
        <div className="field">
          <label htmlFor={domainId}>Domain</label>
          <select
            id={domainId}
            required
            value={values.domain}
            onChange={(event) => {
              set('domain', event.target.value);
            }}
          >
            {known || values.domain === '' ? null : <option value={values.domain}>{values.domain}</option>}
            {domains.map((d) => (
              <option key={d.id} value={d.domain}>
                {d.domain}
              </option>
            ))}
          </select>
        </div>
      ) : editing ? null : (
        <>
          <Field
            label="App"
            required
            list={appsId}
            hint="The id of the workspace's deep-link app (app_…); the deep link lives on the app's domain."
            value={values.appId}
            onChange={(v) => {
              set('appId', v);
            }}
          />
          <datalist id={appsId}>
            {apps.map((app) => (
              <option key={app} value={app} />
            ))}
          </datalist>
        </>
      )}
      <Field
        label="Short key"
        value={values.key}
        hint={editing ? 'Changing it changes the short link.' : 'Left empty, a random key is made.'}
        onChange={(v) => {
          set('key', v);
        }}
      />
      <Field
        label="Title"
        value={values.title}
        onChange={(v) => {
          set('title', v);
        }}
      />
      <Field
        label="Tags"
        value={values.tags}
        hint="Comma-separated tag names."
        onChange={(v) => {
          set('tags', v);
        }}
      />
      <Section title="UTM and campaign tracking">
        {TRACKING_FIELDS.map(([name, label]) => (
          <Field
            key={name}
            label={label}
            value={values.tracking[name]}
            onChange={(v) => {
              set('tracking', { ...values.tracking, [name]: v });
            }}
          />
        ))}
        <Field
          label="Custom parameters"
          multiline
          hint="One name=value a line, added to the destination's query."
          value={values.customParams}
          onChange={(v) => {
            set('customParams', v);
          }}
        />
      </Section>
      <Section title="Expiry and password">
        <Field
          label="Expires at"
          type="datetime-local"
          hint="In your time zone. After it the link sends visitors to the expired URL."
          value={values.expiresAt}
          onChange={(v) => {
            set('expiresAt', v);
          }}
        />
        <Field
          label="Expired URL"
          type="url"
          value={values.expiredUrl}
          onChange={(v) => {
            set('expiredUrl', v);
          }}
        />
        <Field
          label={editing && passwordProtected ? 'New password' : 'Password'}
          type="password"
          hint={
            editing && passwordProtected
              ? 'The link has a password; left empty it stays.'
              : 'Visitors enter it before they are redirected.'
          }
          value={values.password}
          onChange={(v) => {
            set('password', v);
          }}
        />
        {editing && passwordProtected ? (
          <div className="field checkbox">
            <input
              id={removeId}
              type="checkbox"
              checked={values.removePassword}
              onChange={(event) => {
                set('removePassword', event.target.checked);
              }}
            />
            <label htmlFor={removeId}>Remove the password</label>
          </div>
        ) : null}
      </Section>
      <Section title="Geo targeting and platform overrides">
        <Field
          label="Geo targeting"
          multiline
          hint="One COUNTRY=URL a line (ISO country code, e.g. DE=https://example.de)."
          value={values.geo}
          onChange={(v) => {
            set('geo', v);
          }}
        />
        <Field
          label="iOS URL"
          type="url"
          value={values.iosOverrideUrl}
          onChange={(v) => {
            set('iosOverrideUrl', v);
          }}
        />
        <Field
          label="Android URL"
          type="url"
          value={values.androidOverrideUrl}
          onChange={(v) => {
            set('androidOverrideUrl', v);
          }}
        />
        <Field
          label="Desktop URL"
          type="url"
          value={values.desktopOverrideUrl}
          onChange={(v) => {
            set('desktopOverrideUrl', v);
          }}
        />
      </Section>
      <Section title="Social preview">
        <Field
          label="Preview title"
          value={values.previewTitle}
          onChange={(v) => {
            set('previewTitle', v);
          }}
        />
        <Field
          label="Preview description"
          multiline
          value={values.previewDescription}
          onChange={(v) => {
            set('previewDescription', v);
          }}
        />
        <Field
          label="Preview image URL"
          type="url"
          value={values.previewImage}
          onChange={(v) => {
            set('previewImage', v);
          }}
        />
        <Field
          label="Preview image description"
          value={values.previewImageAlt}
          onChange={(v) => {
            set('previewImageAlt', v);
          }}
        />
        <div className="field">
          <label htmlFor={cardId}>Card type</label>
          <select
            id={cardId}
            value={values.twitterCard}
            onChange={(event) => {
              const v = event.target.value;
              set('twitterCard', v === 'summary' || v === 'summary_large_image' ? v : '');
            }}
          >
            <option value="">Default</option>
            <option value="summary">Summary</option>
            <option value="summary_large_image">Summary, large image</option>
          </select>
        </div>
      </Section>
      <Section title="Notes and app data">
        <Field
          label="Comments"
          multiline
          value={values.comments}
          onChange={(v) => {
            set('comments', v);
          }}
        />
        <Field
          label="Objects (JSON)"
          multiline
          hint="A JSON object handed to apps that open the link."
          value={values.objects}
          onChange={(v) => {
            set('objects', v);
          }}
        />
      </Section>
    </>
  );
};
