import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import type { SwitchboardBridge } from '../../shared/ipc.ts';
import type { UiApi } from '../../shared/ui-api.ts';
import { App } from './App.tsx';
import { ApiProvider } from './api/context.tsx';
import { ControlApiClient, httpTransport, ipcTransport } from './api/http.ts';
import { finishSignIn } from './api/session.ts';
import './styles.css';

/**
 * In the desktop app the preload exposes its IPC bridge as `window.switchboard`; in headless mode (a
 * browser on `switchboard serve`) there is none and requests go over HTTP with this browser's session
 * secret, which the sign-in page (/login?code=…) gets first (api/session.ts).
 */
const bridge = (window as Window & { switchboard?: SwitchboardBridge }).switchboard;
if (!bridge) await finishSignIn();
const api: UiApi = new ControlApiClient(bridge ? ipcTransport(bridge) : httpTransport());

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <ApiProvider api={api}>
      <App />
    </ApiProvider>
  </StrictMode>,
);
