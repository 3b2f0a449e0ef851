/**
 * A `sitecustomize` (on PYTHONPATH) for sandboxed Python servers: aiohttp's ClientSession ignores
 * HTTP(S)_PROXY unless made with `trust_env=True`, so in a sandbox whose only way out is the proxy it
 * had no network; this makes `trust_env=True` its default, when aiohttp is first imported (nothing is
 * loaded before). urllib, requests and httpx follow the proxy by themselves. The sitecustomize it
 * hides (Debian's, a virtualenv's) still runs. Written to a file by sandboxes.ts.
 */
export const PYTHON_SITECUSTOMIZE = `# Switchboard's sandbox: aiohttp follows HTTPS_PROXY, as other clients do (its only way out).
import os as _os
import sys as _sys


class _SwitchboardAiohttpTrustEnv:
    def find_spec(self, name, path=None, target=None):
        if name != "aiohttp.client":
            return None
        for finder in _sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        run = loader.exec_module

        def exec_module(module):
            run(module)
            _sys.meta_path[:] = [f for f in _sys.meta_path if f is not self]
            session = getattr(module, "ClientSession", None)
            if session is None:
                return
            init = session.__init__

            def __init__(self, *args, trust_env=True, **kwargs):
                init(self, *args, trust_env=trust_env, **kwargs)

            session.__init__ = __init__

        loader.exec_module = exec_module
        return spec


if _os.environ.get("HTTPS_PROXY") or _os.environ.get("https_proxy"):
    _sys.meta_path.insert(0, _SwitchboardAiohttpTrustEnv())


def _next_sitecustomize():
    here = _os.path.dirname(_os.path.abspath(__file__))
    for entry in _sys.path:
        folder = _os.path.abspath(entry or ".")
        candidate = _os.path.join(folder, "sitecustomize.py")
        if folder != here and _os.path.isfile(candidate):
            with open(candidate, "rb") as source:
                code = compile(source.read(), candidate, "exec")
            exec(code, {"__name__": "sitecustomize", "__file__": candidate})
            return


_next_sitecustomize()
`;

/** PYTHONPATH with the sitecustomize's folder first, before what the server already had. */
export function withPythonPath(pythonPath: string | undefined, folder: string): string {
  return [folder, pythonPath].filter(Boolean).join(':');
}
