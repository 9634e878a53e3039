import { PlusIcon } from 'lucide-react'
import { useId } from 'react'
import { Link } from 'react-router'

import { Button } from '@/components/ui/button'
import { Input, NativeSelect } from '@/components/ui/input'
import { useTranslation } from '@/lib/i18n/i18n'
import { useUrlFilters } from '@/lib/search-params'
import { cn } from '@/lib/utils'

type Option = { value: string; label: string }

/**
 * A labelled select bound to the URL parameter `param`. With `allLabel` the
 * first option has the empty value, which removes the filter; the option
 * `defaultValue` (e.g. the default sort) is likewise kept out of the URL.
 */
function FilterSelect({
  param,
  label,
  allLabel,
  options,
  defaultValue = '',
  className,
}: {
  param: string
  label: string
  allLabel?: string
  options: readonly Option[]
  defaultValue?: string
  className?: string
}) {
  const id = useId()
  const { get, set } = useUrlFilters()
  return (
    <div className={cn('flex flex-col gap-1', className)}>
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <NativeSelect
        id={id}
        value={get(param) || defaultValue}
        onChange={(event) => set({ [param]: event.target.value === defaultValue ? '' : event.target.value })}
      >
        {allLabel !== undefined && <option value="">{allLabel}</option>}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </NativeSelect>
    </div>
  )
}

/**
 * A labelled text filter bound to the URL parameter `param`. It applies its
 * value on Enter or when it loses focus (not on every key, so each search
 * is one request) and restarts from the URL whenever that changes, e.g.
 * after Clear Filters.
 */
function FilterText({
  param,
  label,
  placeholder,
  search = false,
  className,
}: {
  param: string
  label: string
  placeholder?: string
  /** A search box (type=search) rather than a plain text filter. */
  search?: boolean
  className?: string
}) {
  const id = useId()
  const { get, set } = useUrlFilters()
  const value = get(param)
  const commit = (text: string) => {
    const next = text.trim()
    if (next !== value) set({ [param]: next })
  }
  return (
    <div className={cn('flex flex-col gap-1', className)}>
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <Input
        id={id}
        key={value}
        type={search ? 'search' : 'text'}
        defaultValue={value}
        placeholder={placeholder}
        onBlur={(event) => commit(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') commit(event.currentTarget.value)
        }}
      />
    </div>
  )
}

/** The location filter of the listings pages (case-insensitive "contains"). */
function LocationFilter() {
  const { t } = useTranslation()
  return <FilterText param="location" label={t('properties.locationFilter')} placeholder={t('properties.locationPlaceholder')} />
}

/** 'Clear Filters': removes `params` (and the page) from the URL. */
function ClearFiltersButton({ params, onClear, className }: { params: readonly string[]; onClear?(): void; className?: string }) {
  const { t } = useTranslation()
  const { clear } = useUrlFilters()
  return (
    <Button
      variant="outline"
      className={className}
      onClick={() => {
        onClear?.()
        clear(params)
      }}
    >
      {t('listings.clearFilters')}
    </Button>
  )
}

/** The 'List …' call to action of a listings page. */
function NewListingLink({ to, label, className }: { to: string; label: string; className?: string }) {
  return (
    <Button asChild className={className}>
      <Link to={to}>
        <PlusIcon aria-hidden="true" />
        {label}
      </Link>
    </Button>
  )
}

export { ClearFiltersButton, FilterSelect, FilterText, LocationFilter, NewListingLink }
