import type { ReactNode } from "react";

/** A choice: a value shown as it is, or a value and what it says. */
export type Option = string | { value: string | number; text: ReactNode };

/** A select's options, `blank` first when given: the choice of none (its value is ""). */
export function Options({ options, blank }: { options: readonly Option[]; blank?: string }) {
  return (
    <>
      {blank !== undefined && <option value="">{blank}</option>}
      {options.map((option) =>
        typeof option === "string" ? (
          <option key={option} value={option}>
            {option}
          </option>
        ) : (
          <option key={option.value} value={option.value}>
            {option.text}
          </option>
        ),
      )}
    </>
  );
}

/** A select after its label, as a toolbar has them: "Status [any ▾]". */
export function LabelledSelect({
  label,
  value,
  options,
  blank,
  onChange,
}: {
  label: string;
  value: string | number;
  options: readonly Option[];
  blank?: string;
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {label}{" "}
      <select value={value} onChange={(event) => onChange(event.target.value)}>
        <Options options={options} blank={blank} />
      </select>
    </label>
  );
}
