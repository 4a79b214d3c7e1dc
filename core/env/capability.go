package env

// Capability is the host capability under which an agent's active
// provider reaches tools: a bundle tool declares it in its dependencies
// (tool.Dependencies{Profile: tool.ProfileFiltered, HostCapabilities:
// []string{env.Capability}}) and finds the Provider among its named
// dependencies. Builder.Environment and Session.SetEnvironment in package
// agent install it.
const Capability = "starweaver.environment"
