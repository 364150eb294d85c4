import type { Failure } from "../state/controls";

/** A refusal as the runtime put it: its code, what happened and what to do next. */
export function FailureBlock({ failure, onDismiss }: { failure: Failure; onDismiss?: () => void }) {
  return (
    <div className="failure" role="alert" data-code={failure.code}>
      <div className="failure__head">
        {failure.code && <code className="failure__code">{failure.code}</code>}
        {onDismiss && (
          <button type="button" className="icon-button" aria-label="Dismiss" onClick={onDismiss}>
            ×
          </button>
        )}
      </div>
      <p className="failure__title">{failure.title}</p>
      {failure.detail && (
        <p className="failure__recovery">
          <span className="failure__label">What to do</span> {failure.detail}
        </p>
      )}
    </div>
  );
}
