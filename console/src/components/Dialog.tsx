import { useId, useLayoutEffect, useRef, type ReactNode } from 'react';

/**
 * A modal dialog on the native <dialog> element: showModal() makes the rest of the page inert,
 * keeps focus inside, closes on Escape, and the browser gives focus back to the control that
 * opened it when it closes (done here too, as the dialog is removed from the page on close).
 */
export const Dialog = ({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) => {
  const ref = useRef<HTMLDialogElement>(null);
  const headingId = useId();
  // The dialog closes by unmounting (the parent's state), never by the native close event: React's
  // development double mount closes it once on purpose.
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement;
    if (!dialog.open) dialog.showModal();
    // showModal() focuses the first focusable element (the Close button); a field marked
    // data-autofocus takes focus instead (React's autoFocus runs before the dialog opens).
    dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    return () => {
      dialog.close();
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby={headingId}
      onCancel={(event) => {
        // Escape: the parent unmounts the dialog, which closes it.
        event.preventDefault();
        onClose();
      }}
    >
      <div className="dialog-head">
        <h2 id={headingId}>{title}</h2>
        <button type="button" className="icon" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </div>
      {children}
    </dialog>
  );
};
