package apierr

// Error codes, spelled exactly as supabase/auth sends them
// (internal/api/apierrors/errorcode.go) and as auth-js lists them
// (src/lib/error-codes.ts). Clients branch on these strings.
const (
	// CodeUnknown marks an error that reached the writer without a code;
	// it is never assigned on purpose.
	CodeUnknown = "unknown"
	// CodeUnexpectedFailure is a failure the client cannot act on (500).
	CodeUnexpectedFailure = "unexpected_failure"

	CodeValidationFailed                  = "validation_failed"
	CodeBadJSON                           = "bad_json"
	CodeEmailExists                       = "email_exists"
	CodePhoneExists                       = "phone_exists"
	CodeBadJWT                            = "bad_jwt"
	CodeNotAdmin                          = "not_admin"
	CodeNoAuthorization                   = "no_authorization"
	CodeUserNotFound                      = "user_not_found"
	CodeSessionNotFound                   = "session_not_found"
	CodeSessionExpired                    = "session_expired"
	CodeRefreshTokenNotFound              = "refresh_token_not_found"
	CodeRefreshTokenAlreadyUsed           = "refresh_token_already_used"
	CodeFlowStateNotFound                 = "flow_state_not_found"
	CodeFlowStateExpired                  = "flow_state_expired"
	CodeSignupDisabled                    = "signup_disabled"
	CodeUserBanned                        = "user_banned"
	CodeProviderEmailNeedsVerification    = "provider_email_needs_verification"
	CodeInviteNotFound                    = "invite_not_found"
	CodeBadOAuthState                     = "bad_oauth_state"
	CodeBadOAuthCallback                  = "bad_oauth_callback"
	CodeOAuthProviderNotSupported         = "oauth_provider_not_supported"
	CodeUnexpectedAudience                = "unexpected_audience"
	CodeSingleIdentityNotDeletable        = "single_identity_not_deletable"
	CodeEmailConflictIdentityNotDeletable = "email_conflict_identity_not_deletable"
	CodeIdentityAlreadyExists             = "identity_already_exists"
	CodeEmailProviderDisabled             = "email_provider_disabled"
	CodePhoneProviderDisabled             = "phone_provider_disabled"
	CodeTooManyEnrolledMFAFactors         = "too_many_enrolled_mfa_factors"
	CodeMFAFactorNameConflict             = "mfa_factor_name_conflict"
	CodeMFAFactorNotFound                 = "mfa_factor_not_found"
	CodeMFAIPAddressMismatch              = "mfa_ip_address_mismatch"
	CodeMFAChallengeExpired               = "mfa_challenge_expired"
	CodeMFAVerificationFailed             = "mfa_verification_failed"
	CodeMFAVerificationRejected           = "mfa_verification_rejected"
	CodeInsufficientAAL                   = "insufficient_aal"
	CodeCaptchaFailed                     = "captcha_failed"
	CodeManualLinkingDisabled             = "manual_linking_disabled"
	CodeSMSSendFailed                     = "sms_send_failed"
	CodeEmailNotConfirmed                 = "email_not_confirmed"
	CodePhoneNotConfirmed                 = "phone_not_confirmed"
	CodeUserAlreadyExists                 = "user_already_exists"
	CodeConflict                          = "conflict"
	CodeProviderDisabled                  = "provider_disabled"
	CodeReauthenticationNeeded            = "reauthentication_needed"
	CodeSamePassword                      = "same_password"
	CodeReauthenticationNotValid          = "reauthentication_not_valid"
	CodeOTPExpired                        = "otp_expired"
	CodeOTPDisabled                       = "otp_disabled"
	CodeIdentityNotFound                  = "identity_not_found"
	CodeWeakPassword                      = "weak_password"
	CodeOverRequestRateLimit              = "over_request_rate_limit"
	CodeOverEmailSendRateLimit            = "over_email_send_rate_limit"
	CodeOverSMSSendRateLimit              = "over_sms_send_rate_limit"
	CodeBadCodeVerifier                   = "bad_code_verifier"
	CodeAnonymousProviderDisabled         = "anonymous_provider_disabled"
	CodeRequestTimeout                    = "request_timeout"
	CodeMFAPhoneEnrollDisabled            = "mfa_phone_enroll_not_enabled"
	CodeMFAPhoneVerifyDisabled            = "mfa_phone_verify_not_enabled"
	CodeMFATOTPEnrollDisabled             = "mfa_totp_enroll_not_enabled"
	CodeMFATOTPVerifyDisabled             = "mfa_totp_verify_not_enabled"
	CodeMFAVerifiedFactorExists           = "mfa_verified_factor_exists"
	CodeInvalidCredentials                = "invalid_credentials"
	CodeEmailAddressNotAuthorized         = "email_address_not_authorized"
	CodeEmailAddressInvalid               = "email_address_invalid"

	// CodeNotImplemented is KejaNest's own, not GoTrue's: it marks a route
	// that exists in GoTrue but not here yet, answered 501. auth-js treats
	// 501 as a retryable fetch error, so a client keeps its session when it
	// calls a missing route. It disappears with the last such route.
	CodeNotImplemented = "not_implemented"
)
