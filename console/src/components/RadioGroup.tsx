import { useId } from 'react';

/**
 * A row of native radio buttons named as a group ("Range", "Traffic"): arrow keys move between
 * them, as with any radio group, and the checked one is the view's state.
 */
export const RadioGroup = <T extends string>({
  label,
  options,
  value,
  onChange,
}: {
  label: string;
  options: readonly (readonly [T, string])[];
  value: T;
  onChange: (value: T) => void;
}) => {
  const id = useId();
  return (
    <div className="segmented" role="radiogroup" aria-labelledby={`${id}-label`}>
      <span id={`${id}-label`} className="segmented-label">
        {label}
      </span>
      {options.map(([option, text]) => (
        <label key={option} className={option === value ? 'segment checked' : 'segment'}>
          <input
            type="radio"
            name={id}
            value={option}
            checked={option === value}
            onChange={() => {
              onChange(option);
            }}
          />
          {text}
        </label>
      ))}
    </div>
  );
};
