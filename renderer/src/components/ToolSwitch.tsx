/**
 * A tool's on/off switch: a real checkbox (keyboard, screen readers and forms all know it) drawn as a
 * switch. `disabledWhy` says why it cannot be changed here, beside it.
 */
export function ToolSwitch({
  label,
  on,
  busy,
  disabledWhy,
  onChange,
}: {
  label: string;
  on: boolean;
  busy?: boolean;
  disabledWhy?: string | undefined;
  onChange: (on: boolean) => void;
}) {
  return (
    <label className="switch" title={disabledWhy}>
      <input
        type="checkbox"
        role="switch"
        checked={on}
        aria-label={label}
        disabled={busy === true || disabledWhy !== undefined}
        onChange={(e) => onChange(e.currentTarget.checked)}
      />
      <span className="switch-track" aria-hidden="true" />
    </label>
  );
}
