package authserver

import (
	"net/http"

	"github.com/vitrine/vitrine"
	"golang.org/x/text/language"
)

// lang is the language of a page: English or Brazilian Portuguese, by the
// browser's Accept-Language.
type lang struct {
	Tag      string // for <html lang>
	messages map[string]string
	// toolsets says what each toolset holds, where it differs from its
	// vitrine.Toolset.About (English).
	toolsets map[string]string
}

var (
	languages = language.NewMatcher([]language.Tag{language.English, language.BrazilianPortuguese})
	english   = &lang{Tag: "en", messages: messagesEN}
	portugues = &lang{Tag: "pt-BR", messages: messagesPT, toolsets: toolsetsPT}
)

func pageLanguage(r *http.Request) *lang {
	tags, _, _ := language.ParseAcceptLanguage(r.Header.Get("Accept-Language"))
	_, i, _ := languages.Match(tags...)
	if i == 1 {
		return portugues
	}
	return english
}

// t returns the message of a key, or the key when it has none
// (TestMessagesInBothLanguages keeps the two catalogs alike).
func (l *lang) t(key string) string {
	if m, ok := l.messages[key]; ok {
		return m
	}
	return key
}

var messagesEN = map[string]string{
	"sign_in":                "Sign in",
	"sign_in_to":             "Sign in to Vitrine",
	"email":                  "Email",
	"password":               "Password",
	"new_password":           "New password",
	"repeat_password":        "Repeat the password",
	"password_hint":          "At least 12 characters.",
	"sign_in_sso":            "Sign in with your company's account",
	"or":                     "or",
	"wrong_credentials":      "The email or the password is wrong.",
	"locked":                 "Too many attempts. Try again in a moment.",
	"expired_title":          "This form has expired",
	"expired_text":           "Go back, reload the page and try again.",
	"authorize_title":        "Allow access to Vitrine?",
	"authorize_asks":         "wants to act for you in Vitrine.",
	"unverified":             "Unverified app: this name is the app's own claim.",
	"unverified_short":       "unverified",
	"verified_domain":        "Published by",
	"redirect_to":            "After your answer you go back to",
	"access":                 "Access",
	"read_only":              "Read only: see companies, products and members; change nothing.",
	"read_write":             "Read and write: also create, change and delete, within your role.",
	"your_companies":         "Your companies, where the app acts with your role",
	"no_companies":           "You belong to no company yet.",
	"role":                   "role",
	"allow":                  "Allow",
	"deny":                   "Deny",
	"signed_in_as":           "Signed in as",
	"sign_out":               "Sign out",
	"account_title":          "Your account",
	"connected_apps":         "Connected apps",
	"no_apps":                "No app is connected.",
	"approved":               "approved",
	"last_used":              "last used",
	"never":                  "never",
	"disconnect":             "Disconnect",
	"personal_tokens":        "Personal tokens",
	"tokens_help":            "For clients where you paste a token (Authorization: Bearer …).",
	"no_tokens":              "You have no personal token.",
	"token_name":             "Name",
	"token_read_only":        "Read only",
	"token_expires":          "Expires",
	"days_30":                "in 30 days",
	"days_90":                "in 90 days",
	"no_expiry":              "never",
	"create_token":           "Create a token",
	"revoke":                 "Revoke",
	"revoked":                "revoked",
	"expired":                "expired",
	"new_token":              "Your new token. Copy it now: it is shown only once.",
	"set_password_title":     "Set your password",
	"passwords_differ":       "The two passwords differ.",
	"link_invalid_title":     "This link no longer works",
	"link_invalid_text":      "It was used, or it expired. Ask your administrator for a new one.",
	"scopes":                 "access",
	"scope_vitrine:read":     "read",
	"scope_vitrine:write":    "read and write",
	"error_title":            "Something went wrong",
	"request_invalid_title":  "This app's request cannot be used",
	"sso_failed":             "Your company's sign-in did not confirm a verified email of a Vitrine user.",
	"too_many":               "Too many attempts from your address. Wait a minute.",
	"lang_name":              "English",
	"account_link":           "Your account",
	"sessions":               "Signed-in browsers",
	"sessions_help":          "A new password and a disabled account sign out every browser too. Apps and tokens keep working: disconnect or revoke them above.",
	"sign_out_everywhere":    "Sign out everywhere",
	"toolsets":               "Tools",
	"toolsets_help":          "The app lists and calls only the tools of what you tick; it can ask you for more later.",
	"toolsets_help_token":    "A client using this token lists and calls only the tools of what you tick.",
	"toolsets_short":         "tools",
	"delete_account":         "Delete my account",
	"delete_account_help":    "Your memberships, tokens, connected apps and sessions end, and your name and email are erased; what you did stays in the companies' audit logs under your user id alone. This cannot be undone.",
	"delete_account_confirm": "Type your email to confirm",
	"delete_account_differs": "The email typed is not your account's: nothing was deleted.",
	"only_owner":             "You are the only owner of %s: make another member owner there, or delete the company, first. Nothing was deleted.",
	"account_kept_title":     "Your account was not deleted",
	"account_deleted_title":  "Your account was deleted",
	"account_deleted_text":   "Your name and email are erased, and nothing of yours signs in any more.",
}

var messagesPT = map[string]string{
	"sign_in":                "Entrar",
	"sign_in_to":             "Entrar na Vitrine",
	"email":                  "E-mail",
	"password":               "Senha",
	"new_password":           "Nova senha",
	"repeat_password":        "Repita a senha",
	"password_hint":          "Pelo menos 12 caracteres.",
	"sign_in_sso":            "Entrar com a conta da sua empresa",
	"or":                     "ou",
	"wrong_credentials":      "O e-mail ou a senha está errado.",
	"locked":                 "Tentativas demais. Tente de novo daqui a pouco.",
	"expired_title":          "Este formulário expirou",
	"expired_text":           "Volte, recarregue a página e tente de novo.",
	"authorize_title":        "Permitir acesso à Vitrine?",
	"authorize_asks":         "quer agir por você na Vitrine.",
	"unverified":             "Aplicativo não verificado: este nome é o que o próprio aplicativo declara.",
	"unverified_short":       "não verificado",
	"verified_domain":        "Publicado por",
	"redirect_to":            "Depois da sua resposta você volta para",
	"access":                 "Acesso",
	"read_only":              "Somente leitura: ver empresas, produtos e membros; sem alterar nada.",
	"read_write":             "Leitura e escrita: também criar, alterar e excluir, dentro do seu papel.",
	"your_companies":         "Suas empresas, onde o aplicativo age com o seu papel",
	"no_companies":           "Você ainda não pertence a nenhuma empresa.",
	"role":                   "papel",
	"allow":                  "Permitir",
	"deny":                   "Recusar",
	"signed_in_as":           "Conectado como",
	"sign_out":               "Sair",
	"account_title":          "Sua conta",
	"connected_apps":         "Aplicativos conectados",
	"no_apps":                "Nenhum aplicativo conectado.",
	"approved":               "aprovado em",
	"last_used":              "último uso",
	"never":                  "nunca",
	"disconnect":             "Desconectar",
	"personal_tokens":        "Tokens pessoais",
	"tokens_help":            "Para clientes em que você cola um token (Authorization: Bearer …).",
	"no_tokens":              "Você não tem nenhum token pessoal.",
	"token_name":             "Nome",
	"token_read_only":        "Somente leitura",
	"token_expires":          "Expira",
	"days_30":                "em 30 dias",
	"days_90":                "em 90 dias",
	"no_expiry":              "nunca",
	"create_token":           "Criar um token",
	"revoke":                 "Revogar",
	"revoked":                "revogado",
	"expired":                "expirado",
	"new_token":              "Seu novo token. Copie agora: ele só é mostrado uma vez.",
	"set_password_title":     "Defina sua senha",
	"passwords_differ":       "As duas senhas são diferentes.",
	"link_invalid_title":     "Este link não funciona mais",
	"link_invalid_text":      "Ele já foi usado ou expirou. Peça um novo ao administrador.",
	"scopes":                 "acesso",
	"scope_vitrine:read":     "leitura",
	"scope_vitrine:write":    "leitura e escrita",
	"error_title":            "Algo deu errado",
	"request_invalid_title":  "O pedido deste aplicativo não pode ser usado",
	"sso_failed":             "O login da sua empresa não confirmou um e-mail verificado de um usuário da Vitrine.",
	"too_many":               "Tentativas demais a partir do seu endereço. Aguarde um minuto.",
	"lang_name":              "Português",
	"account_link":           "Sua conta",
	"sessions":               "Navegadores conectados",
	"sessions_help":          "Uma nova senha e uma conta desativada também desconectam todos os navegadores. Aplicativos e tokens continuam funcionando: desconecte-os ou revogue-os acima.",
	"sign_out_everywhere":    "Sair de todos os lugares",
	"toolsets":               "Ferramentas",
	"toolsets_help":          "O aplicativo lista e usa só as ferramentas do que você marcar; ele pode pedir mais depois.",
	"toolsets_help_token":    "Um cliente que use este token lista e usa só as ferramentas do que você marcar.",
	"toolsets_short":         "ferramentas",
	"delete_account":         "Excluir minha conta",
	"delete_account_help":    "Suas participações, tokens, aplicativos conectados e sessões terminam, e seu nome e e-mail são apagados; o que você fez fica nos registros de auditoria das empresas só com o seu id de usuário. Não há como desfazer.",
	"delete_account_confirm": "Digite seu e-mail para confirmar",
	"delete_account_differs": "O e-mail digitado não é o da sua conta: nada foi excluído.",
	"only_owner":             "Você é o único proprietário de %s: torne outro membro proprietário dela, ou exclua a empresa, antes. Nada foi excluído.",
	"account_kept_title":     "Sua conta não foi excluída",
	"account_deleted_title":  "Sua conta foi excluída",
	"account_deleted_text":   "Seu nome e e-mail foram apagados, e nada seu entra mais.",
}

// toolsetsPT says in Portuguese what each toolset holds; a toolset missing
// here is shown with its English words.
var toolsetsPT = map[string]string{
	"tenants":   "Suas empresas, o que você pode fazer em cada uma, e seus convites.",
	"products":  "O catálogo: encontrar, ler e alterar produtos e seu estoque.",
	"inventory": "Movimentos de estoque e importações em lote.",
	"members":   "Os membros de uma empresa, seus papéis e permissões.",
	"roles":     "O catálogo de permissões e os papéis personalizados.",
	"audit":     "O registro de auditoria de cada chamada.",
	"company":   "A vida inteira de uma empresa: exportá-la, excluí-la e restaurá-la.",
}

// about says what a toolset holds, in the page's language.
func (l *lang) about(ts vitrine.Toolset) string {
	if m, ok := l.toolsets[ts.Name]; ok {
		return m
	}
	return ts.About
}

// T is t for templates.
func (l *lang) T(key string) string { return l.t(key) }
