import { useId, type ComponentProps, type ComponentType, type ReactNode } from 'react'
import { get, useFormContext, type FieldError as FormFieldError } from 'react-hook-form'

import { Field, FieldDescription, FieldError, FieldLabel } from '@/components/ui/field'
import { Input, NativeSelect, Textarea } from '@/components/ui/input'

type FieldFrameProps = {
  /** The form value's path, e.g. "title" or "pricing.0.price". */
  name: string
  label: string
  description?: ReactNode
  /** Hides the label visually; screen readers still announce it. */
  hideLabel?: boolean
  className?: string
}

/**
 * What every bound field needs: an id for its label, the react-hook-form
 * registration and error, and the aria wiring that ties the control to its
 * description and error message.
 */
function useBoundField(name: string, description: ReactNode) {
  const id = useId()
  const { register, formState } = useFormContext()
  const error = get(formState.errors, name) as FormFieldError | undefined
  const describedBy = [description ? `${id}-description` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ')
  return {
    id,
    error,
    register,
    controlProps: { id, 'aria-invalid': Boolean(error), 'aria-describedby': describedBy || undefined },
  }
}

function FieldFrame({
  id,
  label,
  description,
  hideLabel,
  error,
  className,
  children,
}: Omit<FieldFrameProps, 'name'> & { id: string; error?: FormFieldError; children: ReactNode }) {
  return (
    <Field className={className}>
      <FieldLabel htmlFor={id} className={hideLabel ? 'sr-only' : undefined}>
        {label}
      </FieldLabel>
      {children}
      {description && <FieldDescription id={`${id}-description`}>{description}</FieldDescription>}
      <FieldError id={`${id}-error`} error={error} />
    </Field>
  )
}

/**
 * A text or number input bound to the surrounding react-hook-form form
 * (FormProvider). `numeric` reads the value as a number (NaN when empty);
 * `input` swaps in another input component, e.g. a password box with a
 * show/hide toggle.
 */
function InputField({
  name,
  label,
  description,
  hideLabel,
  className,
  numeric = false,
  input: Control = Input,
  ...inputProps
}: FieldFrameProps & {
  numeric?: boolean
  input?: ComponentType<ComponentProps<'input'>>
} & Omit<ComponentProps<'input'>, 'name' | 'id'>) {
  const { id, error, register, controlProps } = useBoundField(name, description)
  return (
    <FieldFrame id={id} label={label} description={description} hideLabel={hideLabel} error={error} className={className}>
      <Control {...inputProps} {...controlProps} {...register(name, numeric ? { valueAsNumber: true } : undefined)} />
    </FieldFrame>
  )
}

/** A multi-line text box bound to the surrounding form. */
function TextareaField({
  name,
  label,
  description,
  hideLabel,
  className,
  ...textareaProps
}: FieldFrameProps & Omit<ComponentProps<'textarea'>, 'name' | 'id'>) {
  const { id, error, register, controlProps } = useBoundField(name, description)
  return (
    <FieldFrame id={id} label={label} description={description} hideLabel={hideLabel} error={error} className={className}>
      <Textarea {...textareaProps} {...controlProps} {...register(name)} />
    </FieldFrame>
  )
}

export type SelectOption = { value: string; label: string }

/** A native select of `options` bound to the surrounding form. */
function SelectField({
  name,
  label,
  description,
  hideLabel,
  className,
  options,
}: FieldFrameProps & { options: readonly SelectOption[] }) {
  const { id, error, register, controlProps } = useBoundField(name, description)
  return (
    <FieldFrame id={id} label={label} description={description} hideLabel={hideLabel} error={error} className={className}>
      <NativeSelect {...controlProps} {...register(name)}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </NativeSelect>
    </FieldFrame>
  )
}

export { InputField, SelectField, TextareaField }
