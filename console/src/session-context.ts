import { createContext, useContext } from 'react';
import type { SessionInfo } from './session';

export interface SessionState {
  session: SessionInfo;
  canWrite: boolean;
  /** Ends the session here (the page goes back to sign-in); `message` says why, on the sign-in page. */
  ended: (message?: string) => void;
}

export const SessionContext = createContext<SessionState | undefined>(undefined);

/** The signed-in session: only pages inside the app shell use it. */
export const useSession = (): SessionState => {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside a signed-in page');
  return state;
};
