/* A program built without debug information (-g0) and without a
 * .gnu_debuglink: what test_source_lines symbolises. */
int main(void)
{
    return 0;
}
