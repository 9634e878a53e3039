import type { ReactNode } from 'react'
import { Link } from 'react-router'

import { Button } from '@/components/ui/button'

/** The submit button of an auth form, with its busy text while the call runs. */
export function AuthSubmit({ pending, label, pendingLabel }: { pending: boolean; label: string; pendingLabel?: string }) {
  return (
    <Button type="submit" disabled={pending}>
      {pending && pendingLabel ? pendingLabel : label}
    </Button>
  )
}

/** 'Don't have an account? Sign up' and its kin, under an auth form. */
export function AuthSwitch({ text, link, to }: { text: ReactNode; link: string; to: string }) {
  return (
    <p className="text-center text-sm text-muted-foreground">
      {text}{' '}
      <Link to={to} className="font-medium text-primary underline underline-offset-4">
        {link}
      </Link>
    </p>
  )
}
