// The preload: the only bridge between the sandboxed renderer and the main process. It exposes a
// small, typed surface (shared/ipc.ts) and nothing of Node or Electron itself.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { IPC_EVENT, IPC_REQUEST, IPC_SHELL } from '../../shared/ipc-channels.ts';
import type { IpcRequest, IpcResponse, IpcShellRequest, SwitchboardBridge } from '../../shared/ipc.ts';

const api: SwitchboardBridge = {
  request: (request: IpcRequest) => ipcRenderer.invoke(IPC_REQUEST, request) as Promise<IpcResponse>,
  shell: (request: IpcShellRequest) => ipcRenderer.invoke(IPC_SHELL, request) as Promise<void>,
  onEvent: (listener) => {
    const handler = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
    ipcRenderer.on(IPC_EVENT, handler);
    return () => ipcRenderer.off(IPC_EVENT, handler);
  },
};

contextBridge.exposeInMainWorld('switchboard', api);
