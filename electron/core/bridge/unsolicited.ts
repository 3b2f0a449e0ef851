import { displayText } from '../../../shared/display-text.ts';
import { ErrorCodes, type JsonRpcRequest } from './json-rpc.ts';

/**
 * What is said when a server asks an editor something (sampling, elicitation) with no editor's
 * request to it in flight: nobody asked it anything, so whatever it wants of a person now (a
 * password, a choice, the model's time) is unsolicited, and whichever editor it reached would have
 * to guess who asks. The note goes to the server's log (quoting what it said, shown safely); the
 * error goes back to the server.
 */
export function unsolicited(
  server: string,
  request: Pick<JsonRpcRequest, 'method' | 'params'>,
): { note: string; error: { code: number; message: string } } {
  const said = typeof request.params?.message === 'string' ? request.params.message : undefined;
  const quoted =
    said === undefined
      ? ''
      : ` (it said: "${displayText(said.slice(0, 200))}${said.length > 200 ? '…' : ''}")`;
  return {
    note:
      `refused its ${request.method}: no editor's request to it was in flight, and Switchboard passes a ` +
      `server's requests to an editor only during one${quoted}`,
    error: {
      code: ErrorCodes.InvalidRequest,
      message: `Switchboard refused ${request.method}: no editor's request to "${server}" is in flight, and a server may ask an editor only while handling one`,
    },
  };
}
