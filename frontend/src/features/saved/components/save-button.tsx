import { HeartIcon } from 'lucide-react'
import type { ReactNode } from 'react'
import { useLocation, useNavigate } from 'react-router'

import { ListingActionsProvider, type ListingActionsProps } from '@/components/listings/listing-actions'
import { Button } from '@/components/ui/button'
import { paths, type LoginRedirectState } from '@/config/paths'
import { toast } from '@/hooks/use-toast'
import { useAuth } from '@/lib/auth'
import { useDiscoverTranslation } from '@/lib/i18n/discover'
import { cn } from '@/lib/utils'

import { useSavedIds } from '../api/saved-ids'
import { isUnavailableListing, useToggleSaved } from '../api/toggle-saved'

/**
 * The heart on a listing card or detail page. Signed in, it saves or
 * unsaves the listing at once (optimistically); signed out, it sends the
 * visitor to /login with the guard's message, remembering this page.
 */
export function SaveButton({ kind, id, title, variant }: ListingActionsProps) {
  const { t, td } = useDiscoverTranslation()
  const { status, user } = useAuth()
  const navigate = useNavigate()
  const location = useLocation()
  const savedIds = useSavedIds(user?.id, kind)
  const toggle = useToggleSaved()
  const saved = savedIds.data?.includes(id) ?? false
  // Signed in, the heart waits for the saved ids so it never shows a wrong state.
  const waiting = status === 'loading' || (status === 'signed-in' && savedIds.isPending)

  const onClick = () => {
    if (status === 'signed-out') {
      toast({ title: t('auth.guardMessage'), variant: 'info' })
      const state: LoginRedirectState = { from: `${location.pathname}${location.search}` }
      void navigate(paths.login, { state })
      return
    }
    if (!user || waiting) return
    toggle.mutate(
      { userId: user.id, kind, id, save: !saved },
      {
        onError: (error) =>
          toast({
            title: isUnavailableListing(error) ? td('saved.notAvailableToSave') : td('saved.failed'),
            description: isUnavailableListing(error) ? undefined : error.message || undefined,
            variant: 'destructive',
          }),
      },
    )
  }

  const heart = <HeartIcon aria-hidden="true" className={cn(saved && 'fill-current')} />
  if (variant === 'detail') {
    return (
      <Button
        type="button"
        variant="outline"
        aria-pressed={saved}
        aria-label={td('saved.save', { title })}
        disabled={waiting || toggle.isPending}
        onClick={onClick}
        className={cn(saved && 'text-primary')}
      >
        {heart}
        {td('saved.saveShort')}
      </Button>
    )
  }
  return (
    <Button
      type="button"
      variant="outline"
      size="icon"
      aria-pressed={saved}
      disabled={waiting || toggle.isPending}
      onClick={onClick}
      className={cn('rounded-full bg-background/90 shadow-sm backdrop-blur', saved && 'text-primary')}
    >
      {heart}
      <span className="sr-only">{td('saved.save', { title })}</span>
    </Button>
  )
}

/** Puts the heart on every listing card and detail page below it. */
export function SaveActionsProvider({ children }: { children: ReactNode }) {
  return <ListingActionsProvider component={SaveButton}>{children}</ListingActionsProvider>
}
