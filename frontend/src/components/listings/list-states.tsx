import { SearchXIcon, TriangleAlertIcon } from 'lucide-react'
import type { ReactNode } from 'react'

import { Button } from '@/components/ui/button'
import { Spinner } from '@/components/ui/spinner'
import { useTranslation } from '@/lib/i18n/i18n'

/** The loading line of a list, e.g. 'Loading land listings...'. */
function ListLoading({ label }: { label: string }) {
  return (
    <div className="flex flex-col items-center gap-3 py-16 text-muted-foreground">
      <Spinner label={label} />
      <p aria-hidden="true">{label}</p>
    </div>
  )
}

/** The empty state: a title, a hint and optional actions. */
function ListEmpty({ title, hint, children }: { title: string; hint?: string; children?: ReactNode }) {
  return (
    <div className="flex flex-col items-center gap-2 py-16 text-center">
      <SearchXIcon className="size-10 text-muted-foreground" aria-hidden="true" />
      <h2 className="text-lg font-semibold">{title}</h2>
      {hint && <p className="text-muted-foreground">{hint}</p>}
      {children}
    </div>
  )
}

/** A failed load, shown with a retry button. */
function ListError({ message, onRetry }: { message: string; onRetry(): void }) {
  const { t } = useTranslation()
  return (
    <div role="alert" className="flex flex-col items-center gap-3 rounded-lg border border-destructive/40 bg-destructive/5 py-12 text-center">
      <TriangleAlertIcon className="size-8 text-destructive" aria-hidden="true" />
      <p className="font-medium">{message}</p>
      <Button variant="outline" onClick={onRetry}>
        {t('listings.tryAgain')}
      </Button>
    </div>
  )
}

export { ListEmpty, ListError, ListLoading }
