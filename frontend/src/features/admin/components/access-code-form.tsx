import { zodResolver } from '@hookform/resolvers/zod'
import { useQueryClient } from '@tanstack/react-query'
import { ShieldCheckIcon } from 'lucide-react'
import { useForm } from 'react-hook-form'
import { useNavigate } from 'react-router'
import { z } from 'zod'

import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader } from '@/components/ui/card'
import { Field, FieldError, FieldLabel } from '@/components/ui/field'
import { Input } from '@/components/ui/input'
import { paths } from '@/config/paths'
import { toast } from '@/hooks/use-toast'
import { tA } from '@/lib/i18n/admin'
import type { AdminKey } from '@/lib/i18n/en-admin'

import { useVerifyAdminAccess } from '../api/admin-access'

const schema = z.object({ code: z.string().trim().min(1, 'admin.login.codeRequired') })
type Values = z.infer<typeof schema>

function minutesUntil(iso: string): number {
  return Math.max(1, Math.ceil((new Date(iso).getTime() - Date.now()) / 60_000))
}

/** /admin/login: the access-code step (spec §2, §5, §8), checked by the server. */
export function AccessCodeForm() {
  const navigate = useNavigate()
  const verify = useVerifyAdminAccess()
  const queryClient = useQueryClient()
  const form = useForm<Values>({ resolver: zodResolver(schema), defaultValues: { code: '' } })
  const error = form.formState.errors.code

  const onSubmit = form.handleSubmit(async ({ code }) => {
    try {
      const result = await verify.mutateAsync(code)
      if (result.verified) {
        toast({ title: tA('admin.login.success'), variant: 'success' })
        navigate(paths.adminDashboard, { replace: true })
      } else if (result.error === 'not_admin') {
        toast({ title: tA('admin.guard.notAdmin'), variant: 'destructive' })
        navigate(paths.root, { replace: true })
      } else if (result.error === 'mfa_required') {
        toast({ title: tA('admin.login.mfa'), variant: 'destructive' })
        void queryClient.invalidateQueries({ queryKey: ['admin', 'mfa'] })
      } else if (result.error === 'too_many_attempts') {
        toast({ title: tA('admin.login.tooMany', { minutes: minutesUntil(result.retry_after) }), variant: 'destructive' })
      } else {
        toast({
          title: tA('admin.login.invalid'),
          description: result.attempts_left <= 2 ? tA('admin.login.attemptsLeft', { count: result.attempts_left }) : undefined,
          variant: 'destructive',
        })
        form.setValue('code', '')
        form.setFocus('code')
      }
    } catch (failure) {
      const message = (failure as { message?: string }).message
      toast({ title: message === 'Two-factor verification required' ? tA('admin.login.mfa') : tA('admin.login.failed'), variant: 'destructive' })
    }
  })

  return (
    <Card className="w-full max-w-md">
      <CardHeader className="items-center text-center">
        <ShieldCheckIcon className="size-10 text-primary" aria-hidden="true" />
        <h1 className="text-2xl font-bold">{tA('admin.login.title')}</h1>
        <p className="text-sm text-muted-foreground">{tA('admin.login.intro')}</p>
      </CardHeader>
      <CardContent>
        <form noValidate onSubmit={onSubmit} className="flex flex-col gap-4">
          <Field>
            <FieldLabel htmlFor="admin-code">{tA('admin.login.code')}</FieldLabel>
            <Input
              id="admin-code"
              type="text"
              autoComplete="off"
              autoFocus
              aria-invalid={!!error}
              aria-describedby={error ? 'admin-code-error' : undefined}
              {...form.register('code')}
            />
            {error?.message && <FieldError id="admin-code-error">{tA(error.message as AdminKey)}</FieldError>}
          </Field>
          <Button type="submit" disabled={verify.isPending}>
            {verify.isPending ? tA('admin.login.checking') : tA('admin.login.submit')}
          </Button>
        </form>
      </CardContent>
    </Card>
  )
}
