import { useId, type FormEvent, type InputHTMLAttributes, type ReactNode } from 'react';
import { ErrorText } from './Feedback.tsx';

/** What a setting form needs of its save command (a `useCommand` mutation). */
interface SaveState {
  isPending: boolean;
  isSuccess: boolean;
  error: Error | null;
}

/**
 * A Settings card saved with its own button: the title, what it means and its fields (children), the
 * save button with any further actions, the line saying it was saved, and the error when it was not.
 */
export function SettingForm(props: {
  title: string;
  onSave: () => void;
  save: SaveState;
  submitLabel: string;
  /** what the status line says once saved */
  savedText: string;
  /** the fields hold something that cannot be saved: the button is off and Enter saves nothing */
  invalid?: boolean;
  /** buttons after the save button */
  actions?: ReactNode;
  testId?: string;
  children: ReactNode;
}) {
  const id = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (props.invalid !== true) props.onSave();
  };
  return (
    <form
      className="card"
      onSubmit={submit}
      noValidate
      aria-labelledby={`${id}-title`}
      data-testid={props.testId}
    >
      <h2 id={`${id}-title`}>{props.title}</h2>
      {props.children}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={props.save.isPending || props.invalid === true}>
          {props.submitLabel}
        </button>
        {props.actions}
        {props.save.isSuccess ? (
          <span className="ok-text small" role="status">
            {props.savedText}
          </span>
        ) : null}
      </div>
      {props.save.error ? <ErrorText error={props.save.error} /> : null}
    </form>
  );
}

/**
 * One text setting: its label, the input, and under it either what is wrong with the value (an alert
 * the input points to) or the hint.
 */
export function SettingInput(props: {
  label: string;
  problem?: string | undefined;
  hint: ReactNode;
  value: string;
  onValue: (value: string) => void;
  /** the input's other attributes (class, input mode, placeholder, …) */
  input: Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>;
}) {
  const id = useId();
  const { problem } = props;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        {...props.input}
        value={props.value}
        onChange={(e) => props.onValue(e.target.value)}
        aria-invalid={problem !== undefined || undefined}
        aria-describedby={problem ? `${id}-err` : `${id}-hint`}
      />
      {problem ? (
        <p className="field-error" id={`${id}-err`} role="alert">
          {problem}
        </p>
      ) : (
        <p className="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
    </div>
  );
}

/** A number setting: a narrow input on a row of its own. */
export function NumberSetting({
  inputMode,
  ...field
}: Omit<Parameters<typeof SettingInput>[0], 'input'> & { inputMode: 'numeric' | 'decimal' }) {
  return (
    <div className="row">
      <SettingInput {...field} input={{ inputMode, className: 'mono narrow-input' }} />
    </div>
  );
}
