// Command capi is the C ABI of the starweaver runtime, built with
// -buildmode=c-shared into libstarweaver. It only translates: C calls and
// JSON in, core/ calls, JSON and handles out. starweaver.h is the contract.
package main

func main() {}
